import SluiceCore

/// Decides, after an attempt failed, whether to send the request again.
///
/// An attempt fails on a transport error (no connection, a timeout, a lost connection) or when the
/// response serializer refuses the response (an unacceptable status such as 401 or 503, with the
/// response in ``SluiceError/response``).
public protocol RequestRetrier: Sendable {
    /// The decision for `request` after `error`.
    ///
    /// - Parameters:
    ///   - request: The request of the failed attempt, as adapted.
    ///   - session: The manager sending it.
    ///   - error: Why the attempt failed.
    ///   - attempt: How many attempts have been made, this one included (1 after the first failure).
    func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision
}
