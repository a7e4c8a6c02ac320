/// A task's attempts on the engine — the first request, each followed redirect, each retry with a
/// credential — as a value with no locks, no C and no I/O: the transfer sends it what happened and
/// carries out the action it returns.
///
/// ```
/// attemptStarted ─► headReceived ─► body bytes (kept aside for a redirect, else delivered: beginBody)
///        ▲                                   │
///        │                              attemptEnded
///        │        ┌──────────────┬───────────┼──────────────────┬──────────────┐
///        │      fail     decideRedirect  askChallengeHandler  complete   failNoResponse
///        │                 │      │            │      │
///        ├── followRedirect┘      │            │      └─► complete
///        │      deliverRedirectBody ─► (challenge check) ─► complete
///        └── retryWithCredential ◄─────────────┘
/// ```
///
/// The decisions that need the user's code (the redirect policy's closure, the challenge handler) are
/// actions: the transfer runs them and reports the answer as an event.
struct TransferAttempts: Equatable {
    /// What the transfer does next, after an attempt ended or after an answer.
    enum Action: Equatable {
        /// The task fails with the attempt's own error (libcurl's code, or a callback's failure).
        case fail
        /// The task fails: no response head arrived.
        case failNoResponse
        /// Plan the redirect and ask the policy; then ``redirectDecided(follow:leavesOrigin:)``.
        case decideRedirect
        /// Send the planned request, on the same task.
        case followRedirect
        /// The redirect is not followed: its buffered body is the answer's body. Begin the body, write
        /// it, then ``redirectBodyDelivered()``.
        case deliverRedirectBody
        /// Ask the challenge handler for a credential; then ``challengeAnswered(offered:)``.
        case askChallengeHandler
        /// Send the same request again with the offered credential (the 401's body is discarded).
        case retryWithCredential
        /// The task succeeds with this response: begin the body if it has not begun, finish decoding.
        case complete
    }

    /// What the task is, for the decisions that depend on it.
    let kind: SessionTask.Kind
    /// Whether the session has a challenge handler.
    let hasChallengeHandler: Bool
    /// Redirects followed so far.
    private(set) var redirectCount = 0
    /// Whether the challenge handler was asked (once per task).
    private(set) var askedChallengeHandler = false
    /// Whether a followed redirect left the original origin: the session's default credentials are not
    /// sent from then on.
    private(set) var leftOriginalOrigin = false
    /// Whether the current response is a redirect whose body is kept aside.
    private(set) var buffersRedirectBody = false
    /// Whether the current response's body was begun (its sink told of the head).
    private(set) var bodyBegun = false
    /// The final status of the attempt that ended, for the challenge decision.
    private var endedStatus = 0

    init(kind: SessionTask.Kind, hasChallengeHandler: Bool) {
        self.kind = kind
        self.hasChallengeHandler = hasChallengeHandler
    }

    // MARK: Events

    /// An attempt begins: a new response will come.
    mutating func attemptStarted() {
        buffersRedirectBody = false
        bodyBegun = false
        endedStatus = 0
    }

    /// A final head arrived; `followsRedirect` says whether its status and the policy make it a redirect
    /// to follow (``RedirectPlanner/follows(statusCode:hasLocation:policy:)``).
    mutating func headReceived(followsRedirect: Bool) {
        buffersRedirectBody = followsRedirect
    }

    /// Whether the body is to be begun now: `true` once per response, and never for a redirect's body
    /// kept aside.
    mutating func beginBody() -> Bool {
        guard !bodyBegun, !buffersRedirectBody else { return false }
        bodyBegun = true
        return true
    }

    /// The attempt ended.
    ///
    /// - Parameters:
    ///   - succeeded: libcurl ended it without an error.
    ///   - callbackFailed: one of the transfer's callbacks failed it (its error is the task's).
    ///   - statusCode: the final head's status, or `nil` when no head arrived.
    mutating func attemptEnded(succeeded: Bool, callbackFailed: Bool, statusCode: Int?) -> Action {
        guard succeeded, !callbackFailed else { return .fail }
        guard let statusCode else { return .failNoResponse }
        endedStatus = statusCode
        if buffersRedirectBody { return .decideRedirect }
        return challengeOrComplete()
    }

    /// The redirect was planned and the policy answered: `follow` when there is a request to send.
    mutating func redirectDecided(follow: Bool, leavesOrigin: Bool) -> Action {
        if leavesOrigin { leftOriginalOrigin = true }
        if follow {
            redirectCount += 1
            return .followRedirect
        }
        buffersRedirectBody = false
        return .deliverRedirectBody
    }

    /// The body of a redirect that was not followed was handed to the sink.
    mutating func redirectBodyDelivered() -> Action { challengeOrComplete() }

    /// The challenge handler answered: `offered` when it gave a credential.
    mutating func challengeAnswered(offered: Bool) -> Action {
        offered ? .retryWithCredential : .complete
    }

    private mutating func challengeOrComplete() -> Action {
        guard AuthenticationRetryPlanner.asksHandler(
            statusCode: endedStatus, kind: kind, askedAlready: askedChallengeHandler, hasHandler: hasChallengeHandler)
        else { return .complete }
        askedChallengeHandler = true
        return .askChallengeHandler
    }
}
