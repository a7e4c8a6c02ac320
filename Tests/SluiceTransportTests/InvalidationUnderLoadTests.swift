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
    @Suite("Invalidation while the process is busy", .tags(.server), .needsServers)
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
            try await Wait.until("the upload's body was read 20 times") { body.reads.withLock { $0 } >= 20 }
            for task in storm { task.resume() }
            for task in storm { task.cancel() }
            session.invalidate(cancelingTasks: true)
            let readsAtInvalidation = body.reads.withLock { $0 }
            let error = await #expect(throws: SluiceError.self) { try await upload.value }
            #expect(error?.code == .cancelled)
            // Counted in reads of the body, not in seconds: it stopped being read at once, not seconds
            // later. An engine that acts at once leaves a read under way and one the read-ahead had
            // started; one slowed by the load may let curl take a few more (10 ms or more each) before
            // it acts. 30 is ten times those few, and a small part of the 800 reads of the whole body.
            #expect(body.reads.withLock { $0 } - readsAtInvalidation <= 30)
            #expect(session.tasks.isEmpty)
        }
    
        @Test("invalidate(cancelingTasks: false) with a call between two hops (held in a network layer before its redirect's hop): the hop is still sent and the call completes; a new call then fails")
        func drainSendsTheNextHop() async throws {
            let gate = HopGate(holding: 1)
            let session = try Transport.session { $0.networkLayers = [gate] }
            let call = Task { try await session.data(for: Transport.request(.httpbin, "/redirect/2")) }
            await gate.waitUntilHeld()
            session.invalidate(cancelingTasks: false)
            gate.open()
            let response = try await call.value
            #expect(response.response.statusCode == 200)
            #expect(response.response.url?.path == "/get")
            #expect(gate.hops == 3, "the network layer saw the request and its two redirects")
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: Transport.request(.httpbin, "/get"))
            }
            #expect(error?.code == .sessionInvalidated)
        }

        @Test("invalidate(cancelingTasks: true) with a call held before its transfer reached the engine: it ends cancelled, not sessionInvalidated, and at once")
        func cancelBeforeTheEngine() async throws {
            let gate = HopGate(holding: 0)
            let session = try Transport.session { $0.networkLayers = [gate] }
            let call = Task { try await session.data(for: Transport.request(.http, "/status")) }
            await gate.waitUntilHeld()
            session.invalidate(cancelingTasks: true)
            gate.open()
            let error = await #expect(throws: SluiceError.self) { try await call.value }
            #expect(error?.code == .cancelled)
            #expect(session.tasks.isEmpty)
        }
    }
}

/// A network layer that holds the call at one hop (0 the first) until opened, so a test can act while the
/// call sits between hops; counts the hops it saw.
final class HopGate: HTTPLayer {
    private struct State {
        var hops = 0
        var held = false
        var opened = false
        var waiting: CheckedContinuation<Void, Never>?
        var watchers: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())
    let holding: Int

    init(holding: Int) { self.holding = holding }

    var hops: Int { state.withLock { $0.hops } }

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let hop = state.withLock { state -> Int in
            defer { state.hops += 1 }
            return state.hops
        }
        if hop == holding {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    state.held = true
                    defer { state.watchers = [] }
                    if state.opened { return (true, state.watchers) }
                    state.waiting = continuation
                    return (false, state.watchers)
                }
                for watcher in watchers { watcher.resume() }
                if resumeNow { continuation.resume() }
            }
        }
        return try await next(request, context: context)
    }

    /// Returns once a call is held.
    func waitUntilHeld() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state -> Bool in
                if state.held { return true }
                state.watchers.append(continuation)
                return false
            }
            if held { continuation.resume() }
        }
    }

    /// Lets the held call (and any later one) go on.
    func open() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.opened = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}
