import Foundation
import SluiceCore
@testable import SluiceTransport
import Testing

/// The session as the transport seam, against nginx: each body destination, the events, and the errors.
extension TransportSuites {
    @Suite("SessionManager as the HTTPTransport seam")
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

            let request = try Transport.request(.httpbin, "/delay/3")
            let started = ContinuousClock.now
            let task = Task { try await transport.exchange(request) }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            let cancelled = await #expect(throws: SluiceError.self) { try await task.value }
            #expect(cancelled?.code == .cancelled)
            #expect(ContinuousClock.now - started < .seconds(3))
        }
    }
}
