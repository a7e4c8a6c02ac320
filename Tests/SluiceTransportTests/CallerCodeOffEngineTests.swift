import Dispatch
import Foundation
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

/// The caller's redirect and challenge handlers run off the engine thread: one that blocks holds only
/// its own task, which can still be cancelled, time out, or be ended by invalidation.
extension TransportSuites {
    @Suite("Redirect and challenge handlers off the engine thread", .tags(.server), .needsServers, .serialized)
    struct CallerCodeOffEngineTests {
        /// 100 GETs of `session` while a handler of the same session is blocked: they all answer, and
        /// while it still blocks (`returned`, sent once the handler returns, is not sent yet).
        ///
        /// Shown by the order of events, not by a time: a transport that waited for the handler would
        /// answer the GETs only after the handler returned (at the latest when its gate opens by itself).
        static func hundredGets(on session: SessionManager, whileBlocked returned: TestSignal<Void>) async throws {
            var get = try Transport.request(.http, "/files/small.txt")
            get.timeout = 10
            let request = get
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await session.data(for: request).response.statusCode } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
            #expect(returned.sentValue == nil, "the GETs waited for the blocked handler")
        }

        @Test("a redirect decision blocked for up to 20 s beside 100 GETs: the GETs complete, then the redirect is followed")
        func blockedRedirectDecision() async throws {
            let gate = DispatchSemaphore(value: 0)
            // Opens by itself after 20 s, so that a transport that waits for the handler fails this test
            // instead of hanging it.
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { gate.signal() }
            let asked = TestSignal<Void>()
            let returned = TestSignal<Void>()
            let session = try Transport.session {
                $0.redirectPolicy = .decide { next, _ in
                    asked.send()
                    gate.wait()
                    returned.send()
                    return next
                }
            }
            let redirect = try Transport.request(.httpbin, "/redirect-to?url=%2Fget")
            let following = Task { try await session.data(for: redirect) }
            try await asked.value("the redirect decision was asked for")

            try await Self.hundredGets(on: session, whileBlocked: returned)
            gate.signal()
            let result = try await following.value
            #expect(result.response.statusCode == 200 && result.request.url.path == "/get")
            #expect(result.metrics.transactions.count == 2)
        }

        @Test("a challenge handler blocked for up to 20 s beside 100 GETs: the GETs complete, then its credential is used")
        func blockedChallengeHandler() async throws {
            let gate = DispatchSemaphore(value: 0)
            // Opens by itself after 20 s, so that a transport that waits for the handler fails this test
            // instead of hanging it.
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { gate.signal() }
            let asked = TestSignal<Void>()
            let returned = TestSignal<Void>()
            let session = try Transport.session {
                $0.authenticationChallengeHandler = { _, _ in
                    asked.send()
                    gate.wait()
                    returned.send()
                    return Credential(user: "user", password: "passwd", schemes: [.basic])
                }
            }
            let protected = try Transport.request(.httpbin, "/basic-auth/user/passwd")
            let answering = Task { try await session.data(for: protected) }
            try await asked.value("the challenge handler was asked for a credential")

            try await Self.hundredGets(on: session, whileBlocked: returned)
            gate.signal()
            let result = try await answering.value
            #expect(result.response.statusCode == 200)
        }

        @Test("an answer that comes after its session was invalidated and its engine stopped frees the task and session")
        func lateAnswerAfterInvalidation() async throws {
            let gate = DispatchSemaphore(value: 0)
            defer { gate.signal() }
            let asked = TestSignal<Void>()
            let answered = TestSignal<Void>()
            let policy = RedirectPolicy.decide { next, _ in
                asked.send()
                _ = gate.wait(timeout: .now() + 20)
                answered.send()
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
                        do {
                            try await asked.value("the redirect decision was asked for")
                        } catch {
                            Issue.record(error)
                        }
                        session.invalidate(cancelingTasks: true)
                    }
                }
                guard case .failure(let error) = result else { Issue.record("the redirect was followed"); return }
                #expect(error.code == .cancelled)
            }
            // The engine stops while the handler still blocks; its answer comes to a stopped engine.
            try await Wait.until("the invalidated session's engine thread ended") {
                !ConcurrencyAndLifecycleTests.isEngineThread(threadID)
            }
            #expect(!ConcurrencyAndLifecycleTests.isEngineThread(threadID), "the invalidated session's engine thread still runs")
            gate.signal()
            try await answered.value("the blocked handler answered")
            try await Wait.until("the task that got the late answer was freed") { tracked?.task == nil }
            #expect(tracked?.task == nil, "the late answer keeps its task, and through it the session, alive")
        }

        @Test("a task waiting for a blocked handler ends at once when cancelled, on its resource timeout, or on invalidation")
        func waitingTaskEnds() async throws {
            let gate = DispatchSemaphore(value: 0)
            defer { for _ in 0..<3 { gate.signal() } }
            // Every handler blocks until the test ends (20 s at most), so "at once" is shown by the order of
            // events, not by a time: each call ends while its handler still blocks, none having returned.
            let returned = Locked(0)
            func blocking(_ asked: TestSignal<Void>) -> RedirectPolicy {
                .decide { next, _ in
                    asked.send()
                    _ = gate.wait(timeout: .now() + 20)
                    returned.withLock { $0 += 1 }
                    return next
                }
            }
            let redirect = try Transport.request(.httpbin, "/redirect-to?url=%2Fget")

            let asked = TestSignal<Void>()
            let session = try Transport.session { $0.redirectPolicy = blocking(asked) }
            let cancelled = Task { try await session.data(for: redirect) }
            try await asked.value("the redirect decision was asked for")
            cancelled.cancel()
            let cancelError = await #expect(throws: SluiceError.self) { try await cancelled.value }
            #expect(cancelError?.code == .cancelled)
            #expect(returned.withLock { $0 } == 0, "the cancelled call waited for its handler")

            let timed = try Transport.session {
                $0.redirectPolicy = blocking(TestSignal())
                $0.resourceTimeout = 1.5
            }
            let timeoutError = await #expect(throws: SluiceError.self) { try await timed.data(for: redirect) }
            #expect(timeoutError?.code == .resourceTimedOut)
            #expect(returned.withLock { $0 } == 0, "the timed-out call waited for its handler")

            let invalidatedAsked = TestSignal<Void>()
            let invalidated = try Transport.session { $0.redirectPolicy = blocking(invalidatedAsked) }
            let running = Task { try await invalidated.data(for: redirect) }
            try await invalidatedAsked.value("the redirect decision was asked for")
            invalidated.invalidate(cancelingTasks: true)
            let invalidError = await #expect(throws: SluiceError.self) { try await running.value }
            #expect(invalidError?.code == .cancelled)
            #expect(returned.withLock { $0 } == 0, "the invalidated call waited for its handler")
        }
    }
}
