import Foundation

/// What the cookie rules need of a request URL: its canonical host, its path and whether its scheme is secure.
struct CookieRequest: Sendable, Hashable {
    /// The host, lowercased (ASCII), IDNA-encoded by `URL`, without the brackets of an IPv6 address.
    let host: String
    /// Whether ``host`` is an IP address.
    let isIPAddress: Bool
    /// The path as sent (percent-encoded), without the query; may be empty.
    let path: String
    /// Whether the scheme is `https` or `wss`.
    let isSecure: Bool

    /// The request `url` describes, or `nil` when its scheme is not `http`, `https`, `ws` or `wss` or it has no
    /// host.
    init?(_ url: URL) {
        guard let scheme = url.scheme.map({ Array(CookieBytes.lowercased($0).utf8) }) else { return nil }
        if scheme.elementsEqual("http".utf8) || scheme.elementsEqual("ws".utf8) {
            isSecure = false
        } else if scheme.elementsEqual("https".utf8) || scheme.elementsEqual("wss".utf8) {
            isSecure = true
        } else {
            return nil
        }
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.utf8.first == UInt8(ascii: "["), host.utf8.last == UInt8(ascii: "]") {
            host = String(decoding: host.utf8.dropFirst().dropLast(), as: UTF8.self)
        }
        let canonical = CookieBytes.lowercased(host)
        guard !canonical.isEmpty else { return nil }
        self.host = canonical
        isIPAddress = CookieMatching.isIPAddress(canonical)
        path = url.path(percentEncoded: true)
    }
}
