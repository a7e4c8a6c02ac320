import SluiceCore

/// Both a ``RequestAdapter`` and a ``RequestRetrier``; each side has a default that does nothing (the
/// request as it is; do not retry), so an interceptor implements only what it needs.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Returns `request` unchanged.
    public func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest { request }

    /// ``RetryDecision/doNotRetry``.
    public func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision {
        .doNotRetry
    }
}
