/// Where and how a request's connection is made: a Unix domain socket instead of TCP, host and port
/// overrides, the local interface, the address family, and whether a large body waits for
/// `100 Continue`.
///
/// A session has one (`SessionConfiguration.connection`); a request may carry its own
/// (``HTTPRequest/connection``), which then replaces the session's whole value for that request and its
/// redirects. Connections are reused only between requests whose settings lead to the same place.
///
/// ```swift
/// var settings = ConnectionSettings()
/// settings.overrides = [ConnectionOverride(host: "api.example.com", port: 443, targetHost: "10.0.0.7", targetPort: 8443)]
/// settings.addressFamily = .ipv4
/// ```
public struct ConnectionSettings: Sendable, Hashable {
    /// The IP version of the addresses a host name may resolve to.
    public enum AddressFamily: String, Sendable, Hashable, CaseIterable {
        /// Whatever the name resolves to (IPv6 and IPv4, happy eyeballs).
        case any
        /// IPv4 addresses only.
        case ipv4
        /// IPv6 addresses only.
        case ipv6
    }

    /// The Unix domain socket every request connects to instead of the URL's host and port (Docker's
    /// `/var/run/docker.sock`, a local service), or `nil` for TCP. The URL's host still names the server
    /// in `Host` and for TLS. A URL of the form `http+unix://%2Fvar%2Frun%2Fdocker.sock/info` names its
    /// socket itself and needs no setting. Default `nil`.
    public var unixSocketPath: String?
    /// Host and port pairs connected to somewhere else (curl's `--connect-to`): the request keeps its
    /// URL (its `Host`, its TLS name and certificate check), the connection goes to the override's
    /// target. The first that matches applies. Default none.
    public var overrides: [ConnectionOverride]
    /// The local interface or address connections are made from: an interface name (`eth0`), an IP
    /// address, or a host name; `if!NAME` and `host!NAME` say which it is (curl's `--interface`).
    /// Default `nil`: the system chooses.
    public var localInterface: String?
    /// The addresses a host name may resolve to. Default ``AddressFamily/any``.
    public var addressFamily: AddressFamily
    /// Bodies of at least this many bytes (and bodies of unknown length) are sent with
    /// `Expect: 100-continue` over HTTP/1.1: the server may refuse the request before the body goes
    /// out. A server that answers `417 Expectation Failed` gets the request again without it. `nil`
    /// sends every body at once. Default `nil` (as URLSession and async-http-client do).
    public var expectContinueThreshold: Int64?
    /// How long a request with `Expect: 100-continue` waits for `100 Continue` before sending its body
    /// anyway, in seconds. Default 1 (curl's).
    public var expectContinueTimeout: Double

    /// Settings for connections.
    ///
    /// - Parameters:
    ///   - unixSocketPath: Default `nil` (TCP).
    ///   - overrides: Default none.
    ///   - localInterface: Default `nil`.
    ///   - addressFamily: Default ``AddressFamily/any``.
    ///   - expectContinueThreshold: Default `nil` (never).
    ///   - expectContinueTimeout: Default 1 second.
    public init(
        unixSocketPath: String? = nil, overrides: [ConnectionOverride] = [], localInterface: String? = nil,
        addressFamily: AddressFamily = .any, expectContinueThreshold: Int64? = nil, expectContinueTimeout: Double = 1
    ) {
        self.unixSocketPath = unixSocketPath
        self.overrides = overrides
        self.localInterface = localInterface
        self.addressFamily = addressFamily
        self.expectContinueThreshold = expectContinueThreshold
        self.expectContinueTimeout = expectContinueTimeout
    }

    /// Direct TCP connections to the URL's host, chosen by the system.
    public static let `default` = ConnectionSettings()

    /// Checks the settings: a socket path that fits a socket address, overrides whose parts hold no
    /// `:` outside brackets, a positive timeout.
    ///
    /// - Throws: ``SluiceError/Code/invalidConnectionSettings`` naming what is wrong.
    public func validate() throws(SluiceError) {
        if let path = unixSocketPath {
            // sockaddr_un holds 108 bytes with its terminating NUL.
            guard !path.isEmpty, path.utf8.count < 108, !path.utf8.contains(0) else {
                throw SluiceError(.invalidConnectionSettings, "the Unix socket path \(path.debugDescription) is empty, holds NUL or is longer than 107 bytes")
            }
        }
        for override in overrides { try override.validate() }
        if let interface = localInterface, interface.isEmpty || interface.utf8.contains(0) {
            throw SluiceError(.invalidConnectionSettings, "the local interface is empty or holds NUL")
        }
        guard expectContinueTimeout > 0, expectContinueTimeout.isFinite else {
            throw SluiceError(.invalidConnectionSettings, "the 100-continue timeout must be positive, got \(expectContinueTimeout)")
        }
        if let threshold = expectContinueThreshold, threshold < 0 {
            throw SluiceError(.invalidConnectionSettings, "the 100-continue threshold must not be negative, got \(threshold)")
        }
    }
}
