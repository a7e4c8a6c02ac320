import Foundation
import SluiceCore

/// Answers `401 Unauthorized` with a credential the program already has: a bearer token, a user name
/// and password, or any `Authorization` value. One line, where ``AuthenticationInterceptor`` is for
/// credentials that expire and are refreshed:
///
/// ```swift
/// let api = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"), interceptor: .authorization(bearerToken: token))
/// ```
///
/// As URLSession answers a challenge with a credential, nothing is sent until the server asks: a
/// request answered `401` is sent again once with the credential, and every later request to that
/// origin carries it from the start. With `sendsPreemptively`, the first request carries it already.
///
/// The credential goes only to one origin (scheme, host and port): the one given, else the manager's
/// base URL's. A manager without a base URL and no origin given answers the challenges of every
/// origin its requests name (not the hosts they are redirected to, which never see an
/// `Authorization` field set here). A request that carries the credential and is refused again, or
/// that carries an `Authorization` field of its own, gets its `401` delivered, never another round.
public struct AuthorizationInterceptor: RequestInterceptor {
    /// What to answer with.
    public enum Credential: Sendable, Hashable {
        /// `Authorization: Bearer TOKEN` (RFC 6750).
        case bearer(String)
        /// `Authorization: Basic BASE64(user:password)` (RFC 7617, UTF-8).
        case basic(user: String, password: String)
        /// `Authorization: VALUE`, as given.
        case authorization(String)

        /// The `Authorization` field's value.
        public var headerValue: String {
            switch self {
            case .bearer(let token): "Bearer \(token)"
            case .basic(let user, let password): "Basic \(Data("\(user):\(password)".utf8).base64EncodedString())"
            case .authorization(let value): value
            }
        }
    }

    /// The credential.
    public let credential: Credential
    /// The origin the credential is for; `nil` for the manager's base URL's (see the type's summary).
    public let origin: URL?
    /// Whether every request to the origin carries the credential from the start. Default `false`.
    public let sendsPreemptively: Bool
    /// The origins that challenged: their later requests carry the credential from the start. Shared
    /// by the copies of this value.
    private let challenged = Locked<Set<String>>([])

    /// An interceptor answering challenges with `credential`.
    ///
    /// - Parameters:
    ///   - credential: What to answer with.
    ///   - origin: The URL whose scheme, host and port the credential is for. Default `nil`: the
    ///     manager's base URL (any origin its requests name, when it has none).
    ///   - sendsPreemptively: Whether to send the credential before being asked. Default `false`.
    public init(_ credential: Credential, origin: URL? = nil, sendsPreemptively: Bool = false) {
        self.credential = credential
        self.origin = origin
        self.sendsPreemptively = sendsPreemptively
    }

    /// Puts the credential on a request to its origin once that origin has challenged (or always, with
    /// ``sendsPreemptively``); leaves a request with an `Authorization` field of its own as it is.
    ///
    /// - Throws: ``SluiceError`` with ``SluiceError/Code/invalidHeaderValue`` for a credential that
    ///   cannot be a field value (a line break in the token).
    public func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest {
        guard request.headers.first("Authorization") == nil, let key = allowedOrigin(of: request, session) else { return request }
        guard sendsPreemptively || challenged.withLock({ $0.contains(key) }) else { return request }
        var request = request
        try request.headers.set(name: "Authorization", value: credential.headerValue)
        return request
    }

    /// ``RetryDecision/retry`` once for a `401` from the credential's origin to a request sent without
    /// the credential; ``RetryDecision/doNotRetry`` otherwise.
    public func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision {
        guard error.response?.statusCode == 401, request.headers.first("Authorization") == nil,
            let key = allowedOrigin(of: request, session)
        else { return .doNotRetry }
        challenged.withLock { _ = $0.insert(key) }
        return .retry
    }

    /// The request's origin as a key, when the credential may go there.
    private func allowedOrigin(of request: HTTPRequest, _ session: HTTPSessionManager) -> String? {
        guard let key = Self.originKey(request.url) else { return nil }
        guard let allowed = origin ?? session.baseURL else { return key }
        return Self.originKey(allowed) == key ? key : nil
    }

    /// `scheme://host:port`, lower-cased, with the scheme's default port filled in.
    static func originKey(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}

extension RequestInterceptor where Self == AuthorizationInterceptor {
    /// Answers `401` with `Authorization: Bearer token` (see ``AuthorizationInterceptor``).
    ///
    /// - Parameters:
    ///   - bearerToken: The token, sent as it is (``AuthorizationInterceptor/Credential/bearer(_:)``); one
    ///     that cannot be a field value fails the request with ``SluiceError/Code/invalidHeaderValue``.
    ///   - origin: The URL whose origin the token is for. Default `nil`: the manager's base URL.
    ///   - sendsPreemptively: Whether to send it before being asked. Default `false`.
    public static func authorization(bearerToken: String, origin: URL? = nil, sendsPreemptively: Bool = false) -> Self {
        AuthorizationInterceptor(.bearer(bearerToken), origin: origin, sendsPreemptively: sendsPreemptively)
    }

    /// Answers `401` with Basic credentials (see ``AuthorizationInterceptor``), as Alamofire's
    /// `authenticate(username:password:)`.
    ///
    /// - Parameters:
    ///   - user: The user name. Encoded as UTF-8 with `password`, as `user:password` in Base64
    ///     (``AuthorizationInterceptor/Credential/basic(user:password:)``).
    ///   - password: The password.
    ///   - origin: The URL whose origin the credential is for. Default `nil`: the manager's base URL.
    ///   - sendsPreemptively: Whether to send it before being asked. Default `false`.
    public static func authorization(
        user: String, password: String, origin: URL? = nil, sendsPreemptively: Bool = false
    ) -> Self {
        AuthorizationInterceptor(.basic(user: user, password: password), origin: origin, sendsPreemptively: sendsPreemptively)
    }
}
