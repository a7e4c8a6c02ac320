#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// RFC 6265's matching rules (§5.1.3 domain matching, §5.1.4 paths), on bytes.
enum CookieMatching {
    /// Whether `host` is an IPv4 or IPv6 address rather than a host name.
    static func isIPAddress(_ host: String) -> Bool {
        if host.utf8.contains(CookieBytes.colon) { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    /// §5.1.3: whether `string` (a canonicalized host) domain-matches `domain`: they are identical, or `domain`
    /// is a suffix of `string` that starts right after a dot of it, and `string` is a host name, not an IP
    /// address.
    static func domainMatches(_ string: String, _ domain: String) -> Bool {
        let host = Array(string.utf8), suffix = Array(domain.utf8)
        if host == suffix { return true }
        guard !suffix.isEmpty, host.count > suffix.count, host.suffix(suffix.count).elementsEqual(suffix) else {
            return false
        }
        return host[host.count - suffix.count - 1] == CookieBytes.dot && !isIPAddress(string)
    }

    /// §5.1.4: whether `requestPath` path-matches `cookiePath`: they are identical, or `cookiePath` is a prefix
    /// of `requestPath` that ends in `/` or is followed by `/` in it. `/docs` matches `/docs`, `/docs/` and
    /// `/docs/web`, not `/docsets`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count { return true }
        if cookie.last == CookieBytes.slash { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == CookieBytes.slash
    }

    /// §5.1.4: the default path of a cookie set by a request for `uriPath`: `/` when the path is empty, does not
    /// start with `/` or has only one `/`; otherwise everything before its last `/`.
    static func defaultPath(_ uriPath: String) -> String {
        let bytes = Array(uriPath.utf8)
        guard bytes.first == CookieBytes.slash, let last = bytes.lastIndex(of: CookieBytes.slash), last > 0 else {
            return "/"
        }
        return CookieBytes.string(bytes[..<last])
    }

    /// The domains whose cookies may go to `host`: the host itself and, for a host name, every parent domain
    /// (`a.b.example` → `a.b.example`, `b.example`, `example`).
    static func candidateDomains(of host: String) -> [String] {
        var domains = [host]
        guard !isIPAddress(host) else { return domains }
        let bytes = Array(host.utf8)
        for index in bytes.indices where bytes[index] == CookieBytes.dot && index + 1 < bytes.count {
            domains.append(CookieBytes.string(bytes[(index + 1)...]))
        }
        return domains
    }
}
