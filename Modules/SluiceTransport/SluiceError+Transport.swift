import SluiceCore

extension SluiceError.Code {
    /// The host name could not be resolved.
    public static let cannotResolveHost: Self = "transport.cannotResolveHost"
    /// No connection could be made to the host.
    public static let cannotConnect: Self = "transport.cannotConnect"
    /// The connection was not made within the connect timeout.
    public static let connectTimedOut: Self = "transport.connectTimedOut"
    /// No bytes moved for longer than the idle timeout.
    public static let idleTimedOut: Self = "transport.idleTimedOut"
    /// The whole transfer took longer than the resource timeout.
    public static let resourceTimedOut: Self = "transport.resourceTimedOut"
    /// The TLS handshake failed or the server's certificate was not trusted.
    public static let tlsFailed: Self = "transport.tlsFailed"
    /// The server's public key matched none of the pinned keys.
    public static let pinnedKeyMismatch: Self = "transport.pinnedKeyMismatch"
    /// More redirects than allowed, or a redirect loop.
    public static let tooManyRedirects: Self = "transport.tooManyRedirects"
    /// A redirect was refused by the redirect policy, or its `Location` was unusable.
    public static let redirectRefused: Self = "transport.redirectRefused"
    /// The task was cancelled by its owner.
    public static let cancelled: Self = "transport.cancelled"
    /// The connection ended before the response was complete.
    public static let connectionLost: Self = "transport.connectionLost"
    /// A downloaded file could not be written or moved to its destination.
    public static let downloadFailed: Self = "transport.downloadFailed"
    /// The session was invalidated and takes no new tasks.
    public static let sessionInvalidated: Self = "transport.sessionInvalidated"
    /// Any other transport failure; ``SluiceError/library`` holds libcurl's code and message.
    public static let transportFailed: Self = "transport.failed"
}
