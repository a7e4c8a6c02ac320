import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

/// The session as the transport seam, against nginx: each body destination, the events, and the errors.
extension TransportSuites {
    @Suite("SessionManager as the HTTPTransport seam", .tags(.server), .needsServers)
    struct HTTPTransportSeamTests {
        @Test("in memory, into a file and as a stream, the same bytes; tasks and progress reported; redirects in the metrics")
        func destinations() async throws {
            let transport: any HTTPTransport = try Transport.session()
            let request = try Transport.request(.http, "/files/64k.bin")
            let tasks = Locked<[any TransportTask]>([])
            let reports = Locked<[TransferProgress]>([])
            let events = TransportEvents(
                didCreateTask: { task in tasks.withLock { $0.append(task) } },
                progress: { update in reports.withLock { $0.append(update) } })

            let memory = try await transport.exchange(request, receiving: .memory, events: events)
            let bytes = try #require(memory.body.data)
            #expect(memory.response.statusCode == 200 && bytes.count == 64 * 1024)
            #expect(memory.metrics?.transactions.count == 1)
            #expect(reports.withLock { $0 }.last?.bytesReceived == Int64(bytes.count))
            #expect(tasks.withLock { $0 }.first is SessionTask)

            let target = URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-seam-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: target) }
            let file = try await transport.exchange(request, receiving: .file { _, _ in target }, events: events)
            #expect(file.body.fileURL == target)
            #expect(try Data(contentsOf: target) == bytes)

            let streamed = try await transport.exchange(request, receiving: .stream, events: events)
            guard case .stream(let chunks) = streamed.body else { Issue.record("not a stream"); return }
            var whole = Data()
            for try await chunk in chunks { whole.append(chunk) }
            #expect(whole == bytes && streamed.metrics == nil)
            #expect(tasks.withLock { $0.count } == 3)

            let redirect = try Transport.request(.httpbin, "/redirect/2")
            let followed = try await transport.exchange(redirect)
            #expect(followed.metrics?.transactions.count == 3)
            #expect(followed.request.url.path == "/get")
        }

        @Test("a request the transport cannot send, and a cancelled caller, end in typed errors")
        func errors() async throws {
            let transport: any HTTPTransport = try Transport.session()
            var bad = try Transport.request(.http, "/files/small.txt")
            bad.method = HTTPMethod(rawValue: "GET X")
            let refused = await #expect(throws: SluiceError.self) { try await transport.exchange(bad) }
            #expect(refused?.code == .invalidMethod)

            // A server that reads the request and never answers, and a session none of whose timeouts ends
            // the exchange while the test waits: only the cancel can end it. That it ends at all is the
            // proof, where a bound on the time taken could be overrun by a busy machine.
            let server = try RawTCPServer(reply: .silent)
            defer { server.stop() }
            let patient: any HTTPTransport = try Transport.session { $0.idleTimeout = 600 }
            let request = HTTPRequest(url: server.url.appendingPathComponent("never"))
            let ended = TestSignal<Void>()
            let task = Task {
                defer { ended.send() }
                return try await patient.exchange(request)
            }
            try await Wait.until("the server has the request") { !server.receivedHeads.isEmpty }
            task.cancel()
            try await ended.value("the cancelled exchange ends, though the server never answers")
            let cancelled = await #expect(throws: SluiceError.self) { try await task.value }
            #expect(cancelled?.code == .cancelled)
        }
    }
}
