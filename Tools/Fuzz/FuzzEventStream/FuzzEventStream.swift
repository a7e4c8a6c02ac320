import Foundation
import FuzzSupport
@_spi(Fuzzing) import SluiceCore

/// libFuzzer's entry point: the event-stream parser (WHATWG rules) and the line splitter under lines and
/// JSON Lines, over a body a server chose.
///
/// The input is two split positions, then the body. A failure is a crash, a sanitizer report, a timeout,
/// or one of these broken properties:
/// - the body gives the same events, last event ID and reconnection time whole, split at the two
///   positions, and one byte per chunk;
/// - no last event ID holds NUL (an `id` with NUL is ignored); a reconnection time is not negative;
/// - the same lines come out however the body is split, and none holds CR or LF;
/// - the lines and their ends account for every byte: joined with LF, they are the body with CRLF and CR
///   made LF (a last line end adds nothing).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let first = input.int(in: 0...255)
    let second = input.int(in: 0...255)
    let body = Data(input.rest())
    let cuts = [min(first, second), max(first, second)].map { min($0, body.count) }
    let pieces = [body.prefix(cuts[0]), body.dropFirst(cuts[0]).prefix(cuts[1] - cuts[0]), body.dropFirst(cuts[1])].map { Data($0) }
    let bytes = body.map { Data([$0]) }

    let whole = EventStreamReading.events([body])
    guard EventStreamReading.events(pieces) == whole, EventStreamReading.events(bytes) == whole else {
        propertyFailed("the events depend on where the body is split: \(Array(body))")
    }
    if whole.events.contains(where: { $0.lastEventID.utf8.contains(0) }) || whole.lastEventID.utf8.contains(0) {
        propertyFailed("a last event ID holds NUL")
    }
    if let time = whole.reconnectionTime, time < 0 { propertyFailed("reconnection time \(time)") }

    let lines = EventStreamReading.lines([body])
    guard EventStreamReading.lines(pieces) == lines, EventStreamReading.lines(bytes) == lines else {
        propertyFailed("the lines depend on where the body is split: \(Array(body))")
    }
    if lines.contains(where: { $0.contains(0x0A) || $0.contains(0x0D) }) { propertyFailed("a line holds a line end") }
    var normalized: [UInt8] = []
    var previous: UInt8 = 0
    for byte in body {
        if byte == 0x0A, previous == 0x0D { previous = byte; continue }
        normalized.append(byte == 0x0D ? 0x0A : byte)
        previous = byte
    }
    var joined = Array(lines.joined(separator: [0x0A]))
    if normalized.last == 0x0A { joined.append(0x0A) }
    guard joined == normalized else { propertyFailed("the lines lose or add bytes: \(Array(body))") }
    return 0
}
