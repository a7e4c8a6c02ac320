import SluiceCore

/// A credential an ``AuthenticationInterceptor`` applies and refreshes (an OAuth token, a session).
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before it is used (it expires soon or has expired).
    var requiresRefresh: Bool { get }
}

/// How a kind of credential is applied to requests, refreshed, and recognised in failures.
public protocol Authenticator: Sendable {
    /// The credential this authenticator handles.
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request` (an `Authorization` header, a query item).
    ///
    /// - Throws: ``SluiceError`` when it cannot (for example a header value with a line break).
    func apply(_ credential: Credential, to request: inout HTTPRequest) throws(SluiceError)

    /// A new credential in place of `credential`. Called once however many requests are waiting.
    ///
    /// - Throws: Any error; the requests waiting for the refresh fail with
    ///   ``SluiceError/Code/authenticationRefreshFailed`` wrapping it (or with it, when it is a ``SluiceError``).
    func refresh(_ credential: Credential, for session: HTTPSessionManager) async throws -> Credential

    /// Whether `error` (with `response`) means the credential was refused. Default: status 401.
    func didRequest(_ request: HTTPRequest, with response: HTTPResponse, failDueToAuthenticationError error: SluiceError) -> Bool

    /// Whether `request` was sent with `credential` (and not an older one). A request sent with an
    /// older credential is retried with the current one without another refresh.
    func isRequest(_ request: HTTPRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    /// `true` for status 401.
    public func didRequest(_ request: HTTPRequest, with response: HTTPResponse, failDueToAuthenticationError error: SluiceError) -> Bool {
        response.statusCode == 401
    }
}
