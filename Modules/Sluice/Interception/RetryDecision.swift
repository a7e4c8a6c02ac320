/// What a ``RequestRetrier`` decides after a failed attempt.
public enum RetryDecision: Sendable {
    /// Send the request again now.
    case retry
    /// Send the request again after the delay.
    case retryAfter(Duration)
    /// Give up: the attempt's error is the outcome.
    case doNotRetry
    /// Give up with this error instead of the attempt's (for example a failed credential refresh).
    case doNotRetryWithError(SluiceError)

    /// Whether the decision sends the request again.
    public var retries: Bool {
        switch self {
        case .retry, .retryAfter: true
        case .doNotRetry, .doNotRetryWithError: false
        }
    }
}
