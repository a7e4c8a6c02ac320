import SluiceCore

extension SluiceError.Code {
    /// A request adapter refused the request with an error that is not a ``SluiceError`` (it is the
    /// underlying error). Nothing was sent.
    public static let requestAdaptationFailed: Self = "session.adaptationFailed"
    /// An ``AuthenticationInterceptor`` has no credential to apply.
    public static let authenticationMissingCredential: Self = "authentication.missingCredential"
    /// Refreshing a credential failed (the refresh's error is the underlying error).
    public static let authenticationRefreshFailed: Self = "authentication.refreshFailed"
    /// More refreshes than the interceptor allows within its window: the server keeps refusing fresh
    /// credentials.
    public static let authenticationExcessiveRefresh: Self = "authentication.excessiveRefresh"
}
