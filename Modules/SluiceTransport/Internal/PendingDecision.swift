import Dispatch
import Foundation
import SluiceCore

/// A question the follow-ups put to the caller's code between two hops: the redirect policy's closure,
/// or the challenge handler.
///
/// The caller's closures may block or take their time, so they run on ``queue``, never on a session's
/// engine thread or the calling task's executor; the hop's call waits for the answer, and ends at once
/// when its task is cancelled or its resource timeout passes (the answer, when it comes, is dropped).
enum PendingDecision {
    /// Where the questions are asked: several at once.
    static let queue = DispatchQueue(label: "sluice.decisions", qos: .userInitiated, attributes: .concurrent)

    /// How a wait for an answer stands.
    private enum Wait<Answer: Sendable> {
        case waiting(CheckedContinuation<Result<Answer, SluiceError>, Never>)
        case done
    }

    /// Runs `question` on ``queue`` and returns its answer, unless `call` is cancelled or `deadline`
    /// passes first.
    ///
    /// - Throws: ``SluiceError/Code/cancelled``, or `timeoutError` at the deadline.
    static func ask<Answer: Sendable>(
        _ question: @escaping @Sendable () -> Answer, for call: PipelineCall, request: HTTPRequest,
        deadline: MonotonicInstant?, timeoutError: @escaping @Sendable () -> SluiceError
    ) async throws(SluiceError) -> Answer {
        let wait = Locked<Wait<Answer>?>(nil)
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Answer, SluiceError>, Never>) in
            wait.withLock { $0 = .waiting(continuation) }
            let end: @Sendable (Result<Answer, SluiceError>) -> Void = { result in
                let waiting = wait.withLock { state -> CheckedContinuation<Result<Answer, SluiceError>, Never>? in
                    guard case .waiting(let continuation) = state else { return nil }
                    state = .done
                    return continuation
                }
                waiting?.resume(returning: result)
            }
            call.whileWaiting {
                end(.failure(SluiceError(.cancelled, "the task was cancelled while its handler decided", request: request)))
            }
            if let deadline {
                let seconds = max(0, Double((deadline - MonotonicInstant.now) / .milliseconds(1)) / 1000)
                queue.asyncAfter(deadline: .now() + seconds) { end(.failure(timeoutError())) }
            }
            queue.async { end(.success(question())) }
        }
        // The lock the answering thread released as it handed the answer over: taken here, it orders the
        // answer's contents (made on that thread) before their use by this lock, not only by the
        // continuation, which ThreadSanitizer cannot see when the answer came before this task had
        // finished suspending.
        wait.withLock { _ in }
        call.whileWaiting(nil)
        return try answer.get()
    }
}
