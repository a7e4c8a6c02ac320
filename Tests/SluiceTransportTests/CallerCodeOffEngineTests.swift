import Dispatch
import Foundation
import SluiceCore
@testable import SluiceTransport
import Testing

/// The caller's redirect and challenge handlers run off the engine thread: one that blocks holds only
/// its own task, which can still be cancelled, time out, or be ended by invalidation.
extension TransportSuites {
    @Suite("Redirect and challenge handlers off the engine thread", .serialized)
    struct CallerCodeOffEngineTests {
        /// 100 GETs of `session` while something of the same session is blocked: they all answer, and soon.
        static func hundredGets(on session: SessionManager) async throws {
            var get = try Transport.request(.http, "/files/small.txt")
            get.timeout = 10
            let request = get
            let started = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await session.data(for: request).response.statusCode } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
            #expect(ContinuousClock.now - started < .seconds(8), "the GETs waited for the blocked handler")
        }

        @Test("a redirect decision blocked for up to 20 s beside 100 GETs: the GETs complete, then the redirect is followed")
        func blockedRedirectDecision() async throws {
            let gate = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { gate.signal() }
            let asked = Locked(0)
            let session = try Transport.session {
                $0.redirectPolicy = .decide { next, _ in
                    asked.withLock { $0 += 1 }
                    gate.wait()
                    return next
                }
            }
            let redirect = try Transport.request(.httpbin, "/redirect-to?url=%2Fget")
            let following = Task { try await session.data(for: redirect) }
            while asked.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }

            try await Self.hundredGets(on: session)
            gate.signal()
            let result = try await following.value
            #expect(result.response.statusCode == 200 && result.request.url.path == "/get")
            #expect(result.metrics.transactions.count == 2)
        }

        @Test("a challenge handler blocked for up to 20 s beside 100 GETs: the GETs complete, then its credential is used")
        func blockedChallengeHandler() async throws {
            let gate = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { gate.signal() }
            let asked = Locked(0)
            let session = try Transport.session {
                $0.authenticationChallengeHandler = { _, _ in
                    asked.withLock { $0 += 1 }
                    gate.wait()
                    return Credential(user: "user", password: "passwd", schemes: [.basic])
                }
            }
            let protected = try Transport.request(.httpbin, "/basic-auth/user/passwd")
            let answering = Task { try await session.data(for: protected) }
            while asked.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }

            try await Self.hundredGets(on: session)
            gate.signal()
            let result = try await answering.value
            #expect(result.response.statusCode == 200)
        }

        @Test("an answer that comes after its session was invalidated and its engine stopped frees the task and session")
        func lateAnswerAfterInvalidation() async throws {
            let gate = DispatchSemaphore(value: 0)
            defer { gate.signal() }
            let asked = Locked(0)
            let answered = Locked(false)
            let policy = RedirectPolicy.decide { next, _ in
                asked.withLock { $0 += 1 }
                _ = gate.wait(timeout: .now() + 20)
                answered.withLock { $0 = true }
                return next
            }
            var tracked: WeakTask?
            var threadID: Int32 = 0
            do {
                let session = try Transport.session { $0.redirectPolicy = policy }
                threadID = session.engineThreadID
                let request = try Transport.request(.httpbin, "/redirect-to?url=%2Fget")
                let result = await withCheckedContinuation { continuation in
                    let task = session.dataTask(with: request) { continuation.resume(returning: $0) }
                    tracked = WeakTask(task)
                    task.resume()
                    Task {
                        while asked.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
                        session.invalidate(cancelingTasks: true)
                    }
                }
                guard case .failure(let error) = result else { Issue.record("the redirect was followed"); return }
                #expect(error.code == .cancelled)
            }
            // The engine stops while the handler still blocks; its answer comes to a stopped engine.
            for _ in 0..<250 where ConcurrencyAndLifecycleTests.isEngineThread(threadID) { try await Task.sleep(for: .milliseconds(20)) }
            #expect(!ConcurrencyAndLifecycleTests.isEngineThread(threadID), "the invalidated session's engine thread still runs")
            gate.signal()
            for _ in 0..<250 where !answered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            for _ in 0..<50 where tracked?.task != nil { try await Task.sleep(for: .milliseconds(20)) }
            #expect(tracked?.task == nil, "the late answer keeps its task, and through it the session, alive")
        }

        @Test("a task waiting for a blocked handler ends at once when cancelled, on its resource timeout, or on invalidation")
        func waitingTaskEnds() async throws {
            let gate = DispatchSemaphore(value: 0)
            defer { for _ in 0..<3 { gate.signal() } }
            let asked = Locked(0)
            let policy = RedirectPolicy.decide { next, _ in
                asked.withLock { $0 += 1 }
                _ = gate.wait(timeout: .now() + 20)
                return next
            }
            let redirect = try Transport.request(.httpbin, "/redirect-to?url=%2Fget")

            let session = try Transport.session { $0.redirectPolicy = policy }
            let cancelled = Task { try await session.data(for: redirect) }
            while asked.withLock({ $0 }) < 1 { try await Task.sleep(for: .milliseconds(10)) }
            var started = ContinuousClock.now
            cancelled.cancel()
            let cancelError = await #expect(throws: SluiceError.self) { try await cancelled.value }
            #expect(cancelError?.code == .cancelled)
            #expect(ContinuousClock.now - started < .seconds(2))

            let timed = try Transport.session {
                $0.redirectPolicy = policy
                $0.resourceTimeout = 1.5
            }
            started = ContinuousClock.now
            let timeoutError = await #expect(throws: SluiceError.self) { try await timed.data(for: redirect) }
            #expect(timeoutError?.code == .resourceTimedOut)
            #expect(ContinuousClock.now - started < .seconds(4))

            let invalidated = try Transport.session { $0.redirectPolicy = policy }
            let running = Task { try await invalidated.data(for: redirect) }
            while asked.withLock({ $0 }) < 3 { try await Task.sleep(for: .milliseconds(10)) }
            started = ContinuousClock.now
            invalidated.invalidate(cancelingTasks: true)
            let invalidError = await #expect(throws: SluiceError.self) { try await running.value }
            #expect(invalidError?.code == .cancelled)
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }
}
