import Dispatch
import SluiceCore

/// A question a transfer puts to the caller's code between two attempts: where to redirect, or which
/// credential answers a 401.
///
/// The caller's closures may block or take their time, so the engine never runs them on its own
/// thread: it sets the transfer aside (its easy handle back in the pool), asks on ``queue``, and goes
/// on with the answer when it comes back. Meanwhile the session's other transfers run; cancelling the
/// task ends it at once, and the answer, when it comes, is dropped.
enum PendingDecision: Sendable {
    /// The redirect policy's `decide` closure, given the planned request and the redirect response.
    case redirect(
        proposed: HTTPRequest, response: HTTPResponse, leavesOrigin: Bool,
        @Sendable (_ next: HTTPRequest, _ response: HTTPResponse) -> HTTPRequest?)
    /// The session's challenge handler, given the request and its 401.
    case challenge(request: HTTPRequest, response: HTTPResponse, AuthenticationChallengeHandler)

    /// What the caller's code answered.
    enum Answer: Sendable {
        /// The request to follow (`nil`: deliver the redirect response), and whether the planned one left
        /// the origin.
        case redirect(HTTPRequest?, leavesOrigin: Bool)
        /// The credential to retry with, `nil` to deliver the 401.
        case credential(Credential?)
    }

    /// Where the questions are asked: off the engine thread, several at once.
    static let queue = DispatchQueue(label: "sluice.decisions", qos: .userInitiated, attributes: .concurrent)

    /// Runs the caller's closure (on ``queue``) and returns its answer.
    func ask() -> Answer {
        switch self {
        case .redirect(let proposed, let response, let leavesOrigin, let decide):
            .redirect(decide(proposed, response), leavesOrigin: leavesOrigin)
        case .challenge(let request, let response, let handler):
            .credential(handler(request, response))
        }
    }
}
