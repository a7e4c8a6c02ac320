import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

/// A body of `total` bytes read 64 KiB at a time, `pause` per read: a slow streamed upload.
final class SlowBody: BodyStream {
    let reads = Locked(0)
    let total: Int
    let pause: Duration
    private let sent = Locked(0)

    init(total: Int, pause: Duration) {
        self.total = total
        self.pause = pause
    }

    var contentLength: Int64? { Int64(total) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        reads.withLock { $0 += 1 }
        Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
        return sent.withLock { sent in
            let count = min(buffer.count, 64 * 1024, total - sent)
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: sent + index) }
            sent += count
            return count
        }
    }
}

/// A body stream whose first read blocks until it is let go.
final class BlockedBody: BodyStream {
    let gate = DispatchSemaphore(value: 0)
    var contentLength: Int64? { nil }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        gate.wait()
        return 0
    }
}

extension TransportSuites {
    @Suite("Invalidation while the process is busy")
    struct InvalidationUnderLoadTests {
        @Test("invalidate(cancelingTasks:) ends a slow streamed upload at once, cancelled, while other sessions cancel thousands of tasks, block in a body read, and come and go")
        func invalidateDuringSlowUploadUnderLoad() async throws {
            // The load: a session cancelling 2,000 tasks at once, one blocked in a body stream's read, and
            // sessions made, used and dropped.
            let busy = try Transport.session()
            let slowFile = try Transport.request(.http, "/slow/files/16m.bin")
            let storm = (0..<2_000).map { _ in busy.dataTask(with: slowFile) { _ in } }
            let blocked = BlockedBody()
            var blockedRequest = try Transport.request(.http, "/upload", method: .post)
            blockedRequest.body = .stream(blocked)
            let blockedCall = Task { try? await busy.data(for: blockedRequest) }
            let churn = Task {
                for _ in 0..<40 where !Task.isCancelled {
                    let passing = try Transport.session()
                    _ = try? await passing.data(for: Transport.request(.http, "/status"))
                }
            }
            defer {
                churn.cancel()
                blocked.gate.signal()
                blockedCall.cancel()
            }

            // The upload: 50 MiB at 10 ms per 64 KiB read, about 8 s.
            let session = try Transport.session()
            let body = SlowBody(total: 50 << 20, pause: .milliseconds(10))
            let upload = Task {
                try await session.upload(for: Transport.request(.http, "/upload", method: .post), from: .stream(body))
            }
            for _ in 0..<500 where body.reads.withLock({ $0 }) < 20 { try await Task.sleep(for: .milliseconds(10)) }
            for task in storm { task.resume() }
            for task in storm { task.cancel() }
            session.invalidate(cancelingTasks: true)
            let readsAtInvalidation = body.reads.withLock { $0 }
            let error = await #expect(throws: SluiceError.self) { try await upload.value }
            #expect(error?.code == .cancelled)
            // Counted in reads of the body, not in seconds: it stopped being read at once (a read under
            // way, and one the read-ahead had started, at most), not seconds later.
            #expect(body.reads.withLock { $0 } - readsAtInvalidation <= 3)
            #expect(session.tasks.isEmpty)
        }
    }
}
