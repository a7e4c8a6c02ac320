import SluiceCore

/// A user name and password for HTTP authentication, and the schemes they may be sent with.
///
/// Credentials go only to the origin (scheme, host, port) of the request they were given for; a
/// redirect to another origin never carries them.
public struct Credential: Sendable, Hashable {
    /// An HTTP authentication scheme.
    public enum Scheme: Sendable, Hashable, CaseIterable {
        /// Basic (RFC 7617): sent with the first request.
        case basic
        /// Digest (RFC 7616): sent after the server's challenge.
        case digest
    }

    /// The user name.
    public var user: String
    /// The password.
    public var password: String
    /// The schemes allowed. Default: Basic and Digest (the server's challenge picks).
    public var schemes: Set<Scheme>

    /// Creates a credential.
    public init(user: String, password: String, schemes: Set<Scheme> = [.basic, .digest]) {
        self.user = user
        self.password = password
        self.schemes = schemes
    }
}

/// Supplies a credential when a server answers `401 Unauthorized`: given the request and the
/// challenge response, returns a credential to retry with, or `nil` to deliver the 401.
public typealias AuthenticationChallengeHandler = @Sendable (_ request: HTTPRequest, _ challenge: HTTPResponse) -> Credential?
