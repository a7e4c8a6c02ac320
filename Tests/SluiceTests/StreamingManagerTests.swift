import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// HTTPSessionManager's streaming verbs against httpbin: the base URL, retries before the head, status
/// validation before the body, lines, JSON Lines and event streams.
@Suite("HTTPSessionManager streaming", .tags(.server), .needsServers)
struct StreamingManagerTests {
    static func manager(interceptor: (any RequestInterceptor)? = nil) throws -> HTTPSessionManager {
        HTTPSessionManager(baseURL: try TestEnvironment.url(for: .httpbin), interceptor: interceptor)
    }

    /// Waits until `manager`'s session has no task left: a stream dropped unread is cancelled on the
    /// engine's thread a moment later, and a test that ends first leaves it to the process's exit.
    static func settled(_ manager: HTTPSessionManager) async throws {
        try await Wait.until("the session has no task left") { manager.session?.tasks.isEmpty ?? true }
        #expect(manager.session?.tasks.isEmpty == true, "a task outlived its stream")
    }

    @Test("bytes: relative to the base URL, read line by line")
    func bytes() async throws {
        let response = try await Self.manager().bytes("stream/5")
        #expect(response.response.statusCode == 200)
        #expect(response.request.url.path == "/stream/5")
        var lines = 0
        for try await _ in response.value.lines { lines += 1 }
        #expect(lines == 5)
    }

    @Test("a status outside 200–299 fails before the body is handed over, with the response")
    func validation() async throws {
        let manager = try Self.manager()
        let error = await #expect(throws: SluiceError.self) { try await manager.bytes("status/404") }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.response?.statusCode == 404)
        try await Self.settled(manager)
    }

    @Test("a 503 before the head is retried by the interceptor; the stream comes from the last attempt")
    func retries() async throws {
        let manager = try Self.manager(interceptor: RetryPolicy(exponentialBackoffScale: .milliseconds(1)))
        let response = try await manager.bytes("sluice/flaky", parameters: ["key": .string(UUID().uuidString), "failures": .integer(2)])
        #expect(response.attempts == 3)
        var body = Data()
        for try await chunk in response.value { body.append(chunk) }
        #expect(String(decoding: body, as: UTF8.self).contains(#""attempts""#))
        try await Self.settled(manager)
    }

    struct Line: Decodable, Sendable { let id: Int }

    @Test("jsonLines: one value per line as they arrive")
    func jsonLines() async throws {
        let response = try await Self.manager().jsonLines("stream/8", as: Line.self)
        var ids: [Int] = []
        for try await line in response.value { ids.append(line.id) }
        #expect(ids == Array(0..<8))
    }

    struct Numbered: Decodable, Sendable { let n: Int }

    @Test("events: reconnects through the manager (adapters run for each connection) until the server says 204")
    func events() async throws {
        let connections = Locked(0)
        let counting = Interceptor(adapt: { request, _ in
            connections.withLock { $0 += 1 }
            return request
        })
        let manager = try Self.manager(interceptor: counting)
        let stream = try manager.events(
            "sluice/events", parameters: ["per_connection": .integer(2), "total": .integer(5), "end": .string("drop")])
        var numbers: [Int] = []
        for try await value in stream.values(as: Numbered.self) { numbers.append(value.n) }
        #expect(numbers == [1, 2, 3, 4, 5])
        #expect(connections.withLock { $0 } == 4, "three connections with events, one answered 204")
        try await Self.settled(manager)
    }
}
