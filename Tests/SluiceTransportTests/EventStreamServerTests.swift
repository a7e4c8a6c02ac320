import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// Event streams, lines and JSON Lines against the real servers: nginx serving the WHATWG vector (whole,
/// and one byte per read through the fault proxy), a server that drops or ends the connection every few
/// events (reconnection, Last-Event-ID, cookies), and httpbin's /stream/{n}.
@Suite("Event streams, lines and JSON Lines against the servers", .tags(.server), .needsServers)
struct EventStreamServerTests {
    static let vectorEvents: [ServerSentEvent] = [
        ServerSentEvent(data: "first"),
        ServerSentEvent(type: "update", data: "two\n lines, the second with a leading space", lastEventID: "1"),
        ServerSentEvent(data: "no space", lastEventID: "2"),
        ServerSentEvent(data: "\n", lastEventID: "2"),
        ServerSentEvent(type: "named", data: "id reset"),
        ServerSentEvent(data: "NUL id ignored"),
        ServerSentEvent(data: "bad retry ignored"),
        ServerSentEvent(data: "\u{FEFF}second BOM kept"),
    ]

    static func session() -> SessionManager { SessionManager(configuration: SessionConfiguration()) }

    /// Waits until `session` has no task left: a stream dropped unread is cancelled on the engine's
    /// thread a moment later, and a test that ends first leaves it to the process's exit.
    static func settled(_ session: SessionManager) async throws {
        try await Wait.until("the session has no task left (a task outlived its stream)") { session.tasks.isEmpty }
        #expect(session.tasks.isEmpty, "a task outlived its stream")
    }

    @Test("nginx's event stream, whole and one byte per read (over 100 reads): the same events")
    func vector() async throws {
        let session = Self.session()
        let direct = try TestEnvironment.request(.http, "/events/whatwg.txt")
        let bytewise = HTTPRequest(url: try TestEnvironment.faultURL("bytewise").appendingPathComponent("events/whatwg.txt"))
        for request in [direct, bytewise] {
            let (stream, head) = try await session.bytes(for: request)
            #expect(head.contentType?.essence == "text/event-stream")
            var events: [ServerSentEvent] = []
            for try await event in stream.serverSentEvents { events.append(event) }
            #expect(events == Self.vectorEvents, "\(request.url)")
        }
        let (stream, _) = try await session.bytes(for: bytewise)
        var reads = 0
        var total = 0
        for try await chunk in stream {
            reads += 1
            total += chunk.count
        }
        #expect(total == 388)
        #expect(reads > 100, "the body came in \(reads) reads")
        try await Self.settled(session)
    }

    @Test("events(for:) one byte per read: every event of the vector, and leaving the loop ends the stream")
    func reconnectingParserBytewise() async throws {
        let url = try TestEnvironment.faultURL("bytewise").appendingPathComponent("events/whatwg.txt")
        var events: [ServerSentEvent] = []
        let session = Self.session()
        for try await event in session.events(for: HTTPRequest(url: url)) {
            events.append(event)
            if events.count == Self.vectorEvents.count { break }
        }
        #expect(events == Self.vectorEvents)
        try await Self.settled(session)
    }

    struct Numbered: Decodable, Sendable {
        let n: Int
        let lastEventID: String?
        let cookie: String?
    }

    @Test("a server that drops the connection every 3 events: reconnection with Last-Event-ID and the session's cookie, then 204 stops it", arguments: ["drop", "close"])
    func reconnection(end: String) async throws {
        let session = Self.session()
        let request = try TestEnvironment.request(.httpbin, "/sluice/events?per_connection=3&total=10&end=\(end)")
        var values: [Numbered] = []
        for try await value in session.events(for: request, reconnection: .init(limit: 2, delay: .seconds(5))).values(as: Numbered.self) {
            values.append(value)
        }
        #expect(values.map(\.n) == Array(1...10))
        // Each connection's events carry the Last-Event-ID it was opened with.
        #expect(values.map(\.lastEventID) == [nil, nil, nil, "3", "3", "3", "6", "6", "6", "9"])
        // The first answer set a cookie; every reconnection sent it back.
        #expect(values.dropFirst(3).allSatisfy { $0.cookie == "1" })
        try await Self.settled(session)
    }

    @Test("the event stream's requests carry Accept and Cache-Control as the rules ask")
    func requestFields() async throws {
        let echo = try TestEnvironment.request(.httpbin, "/headers")
        let session = Self.session()
        let (stream, _) = try await session.bytes(for: SessionManager.eventStreamRequest(echo, lastEventID: "42"))
        var body = Data()
        for try await chunk in stream { body.append(chunk) }
        let headers = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])["headers"] as? [String: String]
        #expect(headers?["Accept"] == "text/event-stream")
        #expect(headers?["Cache-Control"] == "no-cache")
        #expect(headers?["Last-Event-Id"] == "42")
        try await Self.settled(session)
    }

    @Test("a response that is not an event stream ends it at once with eventStreamRefused")
    func refused() async throws {
        let session = Self.session()
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in session.events(for: try TestEnvironment.request(.http, "/plugins/text.txt")) {}
        }
        #expect(error?.code == .eventStreamRefused)
        let missing = await #expect(throws: SluiceError.self) {
            for try await _ in session.events(for: try TestEnvironment.request(.http, "/events/missing.txt")) {}
        }
        #expect(missing?.code == .eventStreamRefused)
        #expect(missing?.response?.statusCode == 404)
        try await Self.settled(session)
    }

    @Test("httpbin's /stream/20 line by line and as JSON Lines")
    func httpbinStream() async throws {
        let session = Self.session()
        let (stream, _) = try await session.bytes(for: try TestEnvironment.request(.httpbin, "/stream/20"))
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }
        #expect(lines.count == 20)
        #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })

        struct Line: Decodable, Sendable { let id: Int; let url: String }
        let (again, _) = try await session.bytes(for: try TestEnvironment.request(.httpbin, "/stream/20"))
        var ids: [Int] = []
        for try await line in again.jsonLines(of: Line.self) { ids.append(line.id) }
        #expect(ids == Array(0..<20))
        try await Self.settled(session)
    }

    @Test("a slow reader of lines holds the transfer back: the body is not read ahead past the buffer limit")
    func linesBackPressure() async throws {
        var configuration = SessionConfiguration()
        configuration.streamBufferLimit = 256 * 1024
        let session = SessionManager(configuration: configuration)
        weak var buffer: StreamBuffer?
        do {
            let (stream, _) = try await session.bytes(for: try TestEnvironment.request(.http, "/files/16m.bin"))
            buffer = stream.buffer
            let task = try #require(session.tasks.first)
            var lines = stream.lines.makeAsyncIterator()
            _ = try await lines.next()
            // The engine reads up to the buffer's limit and then pauses the transfer.
            try await Wait.until("the buffer's limit received while the reader waits") {
                task.downloadProgress.completedUnitCount >= 256 * 1024
            }
            // Bounded negative check: the paused transfer has no event that says it stays paused, so the
            // reader waits a while longer. A slow machine only lets the engine do less meanwhile, which can
            // weaken the check but never fail it.
            try await Task.sleep(for: .milliseconds(500))
            let early = task.downloadProgress.completedUnitCount
            #expect(early <= 1 << 20, "\(early) bytes received while the reader waited")
            // Reading on lets the transfer go on (the random body's invalid UTF-8 makes decoding slow in a
            // debug build: 4,000 lines, about 500 KB, are enough).
            for _ in 0..<4000 { #expect(try await lines.next() != nil) }
            try await Wait.until("the transfer goes on once the reader reads on") {
                task.downloadProgress.completedUnitCount > early
            }
            #expect(task.downloadProgress.completedUnitCount > early)
        }
        // The stream and its reader are gone: the transfer is cancelled, and its buffer freed.
        try await Self.settled(session)
        try await Wait.until("the stream's buffer is freed after its transfer") { buffer == nil }
        #expect(buffer == nil, "the stream's buffer outlived its transfer")
    }

    @Test("a stream dropped unread after its transfer ended frees its buffer")
    func droppedAfterEnd() async throws {
        let session = Self.session()
        weak var buffer: StreamBuffer?
        do {
            let (stream, _) = try await session.bytes(for: try TestEnvironment.request(.http, "/plugins/text.txt"))
            buffer = stream.buffer
            try await Wait.until("the transfer of the unread stream has ended") { session.tasks.isEmpty }
            #expect(stream.buffer.heldBytes == 396_000)
        }
        try await Self.settled(session)
        try await Wait.until("the finished stream's buffer is freed once its reader is gone") { buffer == nil }
        #expect(buffer == nil, "the buffer of a finished stream outlived its reader")
    }
}
