import SluiceCore

/// Changes or refuses a request before each attempt is sent: adds a token, signs it, rewrites its URL.
///
/// Adapters run before every attempt, retries included, so a retried request carries what the adapter
/// adds now (a refreshed token), not what it added the first time.
public protocol RequestAdapter: Sendable {
    /// The request to send in place of `request`.
    ///
    /// - Parameters:
    ///   - request: The request as built (or as the previous adapter left it).
    ///   - session: The manager sending it.
    /// - Throws: Any error, to refuse the request: it fails with that error when it is a
    ///   ``SluiceError``, else with ``SluiceError/Code/requestAdaptationFailed`` wrapping it. Nothing
    ///   is sent then.
    func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest
}
