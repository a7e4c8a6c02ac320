import Foundation
import SluiceCore

/// Runs a server trust evaluator, the caller's code, where libcurl needs its answer at once (before a
/// request is sent, on the engine thread) without letting it hold that thread for longer than a bound.
///
/// The evaluation runs on another thread while the engine waits for it, at most `within` seconds. An
/// evaluator still running then fails the request; it finishes on its own time and its answer is
/// dropped.
enum BoundedTrustEvaluation {
    /// Evaluates `chain` with `evaluator`, waiting at most `seconds`.
    ///
    /// - Throws: What the evaluator throws, or ``SluiceError/Code/trustEvaluationTimedOut``.
    static func evaluate(
        _ chain: ServerCertificateChain, with evaluator: any ServerTrustEvaluator, within seconds: TimeInterval
    ) throws(SluiceError) {
        let outcome = Locked<Result<Void, SluiceError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        PendingDecision.queue.async {
            let result = Result { () throws(SluiceError) in try evaluator.evaluate(chain) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        let nanoseconds = Int(clamping: Int64((max(0, seconds) * 1e9).rounded(.down)))
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success, let result = outcome.withLock({ $0 }) else {
            throw SluiceError(
                .trustEvaluationTimedOut,
                "the server trust evaluator did not answer within \(seconds) s (TLSConfiguration.serverTrustEvaluationTimeout)")
        }
        try result.get()
    }
}
