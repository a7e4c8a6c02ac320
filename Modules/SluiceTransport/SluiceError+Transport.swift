import SluiceCore

extension SluiceError.Code {
    /// The host name could not be resolved.
    public static let cannotResolveHost: Self = "transport.cannotResolveHost"
    /// No connection could be made to the host.
    public static let cannotConnect: Self = "transport.cannotConnect"
    /// The proxy refused the request or its credentials: a SOCKS proxy that rejected the user name and
    /// password or the connection, or an HTTP proxy that answered a tunnel's `CONNECT` with an error status
    /// (a plain request through an HTTP proxy gets the proxy's answer, `407` included, as its response).
    public static let proxyRefused: Self = "transport.proxyRefused"
    /// The connection was not made within the connect timeout.
    public static let connectTimedOut: Self = "transport.connectTimedOut"
    /// No bytes moved for longer than the idle timeout.
    public static let idleTimedOut: Self = "transport.idleTimedOut"
    /// The TLS handshake failed for a reason without a `security.*` code of its own (no common
    /// protocol version or cipher, a broken handshake). Untrusted, expired and pinned-out servers have
    /// their own codes (``untrustedChain``, ``certificateExpired``, ``pinnedKeyMismatch``, ...).
    public static let tlsFailed: Self = "transport.tlsFailed"
    /// The transfer moved slower than ``SessionConfiguration/minimumTransferRate`` for its whole window.
    public static let transferTooSlow: Self = "transport.transferTooSlow"
    /// The server's response cannot be read safely: `Content-Length` fields that disagree (RFC 9112
    /// §6.3, an unrecoverable framing error; the connection is closed, not reused), or more interim
    /// (`1xx`) responses than ``SessionConfiguration/maximumInterimResponses``.
    public static let invalidResponse: Self = "transport.invalidResponse"
    // `cancelled`, `transportFailed`, `downloadFailed`, `resourceTimedOut`, `tooManyRedirects` and
    // `redirectRefused` are declared in SluiceCore: the pipeline's layer contract names them.
    /// The connection ended before the response was complete.
    public static let connectionLost: Self = "transport.connectionLost"
    /// The partial file of ``ResumeData`` is missing, or is not the file the resume data describes
    /// (another length or modification time): continuing it would splice two files.
    public static let resumeDataInvalid: Self = "transport.resumeDataInvalid"
    /// The session was invalidated and takes no new tasks.
    public static let sessionInvalidated: Self = "transport.sessionInvalidated"
}
