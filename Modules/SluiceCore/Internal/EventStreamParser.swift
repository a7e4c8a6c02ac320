import Foundation

/// The WHATWG event-stream interpretation (HTML standard §9.2.6), as a value that takes a connection's
/// bytes and returns the events they complete. It keeps across connections what the rules keep (the last
/// event ID, the reconnection time) and drops at the end of one what they drop (a partial line, an
/// event without its blank line).
struct EventStreamParser: Sendable {
    private var lines = LineSplitter()
    /// No byte of this connection was read yet: a leading byte order mark is skipped.
    private var atStart = true
    private var pendingBOM: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var lastEventIDBuffer: [UInt8] = []

    /// The last event ID, as of the last dispatch: what a reconnection sends as `Last-Event-ID`.
    private(set) var lastEventID = ""
    /// The reconnection time the stream last asked for with a `retry` field, in milliseconds.
    private(set) var reconnectionTime: Int?

    /// The events the bytes of `chunk` complete, in order.
    mutating func feed(_ chunk: Data) -> [ServerSentEvent] {
        var chunk = chunk
        if atStart {
            // The stream's first bytes may be a UTF-8 byte order mark, possibly split across chunks.
            pendingBOM += chunk
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            if pendingBOM.count < 3, bom.starts(with: pendingBOM) { return [] }
            atStart = false
            chunk = Data(pendingBOM.starts(with: bom) ? pendingBOM.dropFirst(3) : pendingBOM[...])
            pendingBOM = []
        }
        var events: [ServerSentEvent] = []
        for line in lines.feed(chunk) {
            if let event = process(line) { events.append(event) }
        }
        return events
    }

    /// The connection ended: its partial line and undispatched event are discarded (an `id` it set
    /// too); the last event ID and the reconnection time stay for the next connection, whose events
    /// without an `id` keep that ID, as browsers keep it.
    mutating func connectionEnded() {
        _ = lines.finish()
        atStart = true
        pendingBOM = []
        data = []
        eventType = []
        lastEventIDBuffer = Array(lastEventID.utf8)
    }

    private mutating func process(_ line: [UInt8]) -> ServerSentEvent? {
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = []
        }
        // Field names compare byte for byte (the rules compare code points; these are ASCII).
        if field.elementsEqual("event".utf8) {
            eventType = Array(value)
        } else if field.elementsEqual("data".utf8) {
            data += value
            data.append(0x0A)
        } else if field.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventIDBuffer = Array(value) }
        } else if field.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                // Digits only; a value too long for an Int is the longest time there is.
                reconnectionTime = Int(String(decoding: value, as: UTF8.self)) ?? Int.max
            }
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = String(decoding: lastEventIDBuffer, as: UTF8.self)
        defer {
            data = []
            eventType = []
        }
        guard !data.isEmpty else { return nil }
        if data.last == 0x0A { data.removeLast() }
        return ServerSentEvent(
            type: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
            data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID)
    }
}
