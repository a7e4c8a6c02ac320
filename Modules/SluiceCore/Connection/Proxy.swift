import Foundation

/// A proxy that requests go through: HTTP (plain requests forwarded, `https` tunnelled with `CONNECT`),
/// HTTPS (the same, over TLS to the proxy), SOCKS4, SOCKS4a, SOCKS5 (names resolved here) or SOCKS5h
/// (names resolved by the proxy).
///
/// ```swift
/// let proxy = Proxy(url: URL(string: "socks5h://proxy.internal:1080")!, user: "app", password: "secret",
///                   bypass: ["localhost", ".svc.cluster.local", "10.0.0.0/8"])
/// configuration.proxy = .proxy(proxy)
/// ```
///
/// Its credentials go to the proxy only: `Proxy-Authorization` for an HTTP or HTTPS proxy, the SOCKS5
/// user name and password for SOCKS5; the origin never sees them.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The schemes a proxy URL may have.
    public static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// The proxy: `http://host:3128`, `https://host:443`, `socks5h://host:1080`. A user name and
    /// password in the URL are used when ``user`` is `nil`.
    public var url: URL
    /// The user name for the proxy, or `nil` for none (or the URL's). Default `nil`.
    public var user: String?
    /// The password for the proxy. Default `nil`.
    public var password: String?
    /// Hosts reached directly, not through the proxy, in `no_proxy`'s forms: `*` for every host, a name
    /// (`example.com`, which also covers its subdomains; a leading dot as in `.example.com` is the same),
    /// an IP address, or an address range (`10.0.0.0/8`, `fd00::/8`). Names are compared without regard
    /// to case. Default none.
    public var bypass: [String]
    /// CA certificates (PEM) trusted for an HTTPS proxy's own certificate, in place of the system store;
    /// `nil` for the system store. Default `nil`.
    public var trustedCertificatesPEM: Data?

    /// A proxy.
    ///
    /// - Parameters:
    ///   - url: The proxy's URL; its scheme says the kind (see ``schemes``).
    ///   - user: Default `nil` (the URL's, if any).
    ///   - password: Default `nil`.
    ///   - bypass: Hosts reached directly. Default none.
    ///   - trustedCertificatesPEM: CAs for an HTTPS proxy. Default `nil` (the system store).
    public init(url: URL, user: String? = nil, password: String? = nil, bypass: [String] = [], trustedCertificatesPEM: Data? = nil) {
        self.url = url
        self.user = user
        self.password = password
        self.bypass = bypass
        self.trustedCertificatesPEM = trustedCertificatesPEM
    }

    /// The proxy's URL without its user name and password.
    public var description: String { RequestTarget.redacted(url) }

    /// Checks the proxy: a supported scheme and a host.
    ///
    /// - Throws: ``SluiceError/Code/invalidProxy`` naming what is wrong.
    public func validate() throws(SluiceError) {
        guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme) else {
            throw SluiceError(.invalidProxy, "the proxy \(description) has no scheme Sluice can use (\(Self.schemes.sorted().joined(separator: ", ")))")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SluiceError(.invalidProxy, "the proxy \(description) has no host")
        }
        for value in [user, password] where value?.utf8.contains(0) == true {
            throw SluiceError(.invalidProxy, "the proxy's user name or password holds NUL")
        }
    }
}
