import Foundation

/// Parses `Set-Cookie` field values into cookies: RFC 6265 §5.2 and the storage steps of §5.3, on bytes.
///
/// The rules, in order:
/// - The name-value pair is everything before the first `;`. Without an `=` in it the field sets nothing. Name and
///   value are trimmed of SP and HTAB; an empty name sets nothing (RFC 6265 §5.2 step 5, followed strictly: RFC
///   6265bis would accept `=value` as a cookie with an empty name, Sluice does not). Double quotes around the value
///   are part of the value, as the RFC keeps them.
/// - Attributes are `;`-separated, names case-insensitive, values trimmed. Of attributes that repeat, the last
///   one that is not ignored wins. Unknown attributes are ignored.
/// - `Expires`: a date by the cookie-date algorithm of §5.1.1 (RFC 1123, RFC 850 with two-digit years, asctime,
///   odd delimiters); a date that does not parse is ignored.
/// - `Max-Age`: digits, optionally after a `-`; anything else is ignored. It wins over `Expires`. Zero or less
///   makes the cookie expired at once (the way a server deletes a cookie).
/// - `Domain`: an empty value is ignored; one leading dot is dropped and the rest lowercased. The request's host
///   must domain-match it (an IP address only matches itself). A public suffix (libpsl's list, both sections) is
///   refused unless it is the host itself, which makes the cookie host-only. Without `Domain` the cookie is
///   host-only, for the request's host. A cookie from an IP-address host is always host-only.
/// - `Path`: a value that is empty or does not start with `/` gives the default path (§5.1.4: the request path up
///   to, not including, its last `/`; `/` when it has one `/` only).
/// - `Secure` and `HttpOnly`: flags; a value after them is ignored. `SameSite`: `Strict`, `Lax` or `None` in any
///   case; anything else is ``HTTPCookie/SameSite/unspecified``.
///
/// And from RFC 6265bis, for safety: a field with a control character other than HTAB sets nothing; nor does a name
/// or value with a tab inside it, a name and value longer than 4096 bytes together, a `Secure` cookie from a URL
/// that is not `https` or `wss`, or a `__Secure-` / `__Host-` name whose requirements are not met.
public enum SetCookieParser {
    /// The longest name and value, together, that a cookie may have (RFC 6265bis §5.6 step 7).
    public static let maximumNameValueLength = 4096

    /// Parses one `Set-Cookie` field value received for `url`.
    ///
    /// - Parameters:
    ///   - setCookie: The field's value (one field: several `Set-Cookie` fields must not be joined with commas).
    ///   - url: The URL of the request the response answered.
    ///   - now: The time the response arrived: the cookie's creation and last access time, and the base of
    ///     `Max-Age`. Default: now.
    /// - Returns: The cookie (possibly expired already: storing it deletes the cookie it replaces), or why the field
    ///   sets nothing.
    public static func parse(_ setCookie: String, for url: URL, at now: Date = Date()) -> Result<HTTPCookie, CookieRejection> {
        guard let request = CookieRequest(url) else { return .failure(.unsupportedURL) }
        return parse(Array(setCookie.utf8), request: request, now: now)
    }

    /// The date RFC 6265 §5.1.1's cookie-date algorithm reads in `text` (UTC), or `nil` when it refuses it.
    ///
    /// - Parameter text: An `Expires` attribute's value.
    public static func parseDate(_ text: String) -> Date? { CookieDate.parse(text.utf8) }

    // MARK: - The algorithm

    /// The attributes of §5.2 that matter, the last of each kind winning.
    private struct Attributes {
        var expires: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        var secure = false
        var httpOnly = false
        var sameSite = HTTPCookie.SameSite.unspecified
    }

    static func parse(_ bytes: [UInt8], request: CookieRequest, now: Date) -> Result<HTTPCookie, CookieRejection> {
        if bytes.contains(where: CookieBytes.isControlExceptTab) { return .failure(.controlCharacter) }
        let pairEnd = bytes.firstIndex(of: CookieBytes.semicolon) ?? bytes.endIndex
        let pair = bytes[..<pairEnd]
        guard let equals = pair.firstIndex(of: CookieBytes.equals) else { return .failure(.missingEquals) }
        let name = CookieBytes.trimmed(pair[..<equals])
        let value = CookieBytes.trimmed(pair[(equals + 1)...])
        guard !name.isEmpty else { return .failure(.emptyName) }
        if name.contains(CookieBytes.tab) || value.contains(CookieBytes.tab) { return .failure(.controlCharacter) }
        guard name.count + value.count <= maximumNameValueLength else { return .failure(.tooLarge) }

        let attributes = parseAttributes(bytes[pairEnd...], request: request, now: now)

        // §5.3 steps 4-6: the domain.
        var domain = attributes.domain ?? ""
        if !domain.isEmpty, PublicSuffixList.isPublicSuffix(domain) {
            guard domain.utf8.elementsEqual(request.host.utf8) else { return .failure(.publicSuffix(domain: domain)) }
            domain = ""
        }
        let hostOnly: Bool
        if domain.isEmpty {
            hostOnly = true
            domain = request.host
        } else {
            guard CookieMatching.domainMatches(request.host, domain) else {
                return .failure(.domainMismatch(domain: domain))
            }
            hostOnly = request.isIPAddress
        }
        let path = attributes.path ?? CookieMatching.defaultPath(request.path)

        // RFC 6265bis: Secure only from a secure origin, and the name prefixes.
        if attributes.secure, !request.isSecure { return .failure(.secureFromInsecureOrigin) }
        if CookieBytes.hasPrefixIgnoringCase(name, "__secure-"), !attributes.secure { return .failure(.prefixMismatch) }
        if CookieBytes.hasPrefixIgnoringCase(name, "__host-"),
            !attributes.secure || attributes.domain.map({ !$0.isEmpty }) == true || !path.utf8.elementsEqual("/".utf8)
        {
            return .failure(.prefixMismatch)
        }

        return .success(
            HTTPCookie(
                name: CookieBytes.string(name), value: CookieBytes.string(value), domain: domain, hostOnly: hostOnly,
                path: path, expires: attributes.maxAge ?? attributes.expires, creation: now, lastAccess: now,
                secure: attributes.secure, httpOnly: attributes.httpOnly, sameSite: attributes.sameSite))
    }

    /// §5.2 steps 1-6 of the attribute loop, over `unparsed` (which starts with `;` when not empty).
    private static func parseAttributes(_ unparsed: ArraySlice<UInt8>, request: CookieRequest, now: Date) -> Attributes {
        var attributes = Attributes()
        for cookieAV in unparsed.split(separator: CookieBytes.semicolon, omittingEmptySubsequences: false).dropFirst() {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = cookieAV.firstIndex(of: CookieBytes.equals) {
                name = CookieBytes.trimmed(cookieAV[..<equals])
                value = CookieBytes.trimmed(cookieAV[(equals + 1)...])
            } else {
                name = CookieBytes.trimmed(cookieAV)
                value = []
            }
            if CookieBytes.equalsIgnoringCase(name, "expires") {
                if let date = CookieDate.parse(value) { attributes.expires = date }
            } else if CookieBytes.equalsIgnoringCase(name, "max-age") {
                if let date = maxAgeExpiry(value, now: now) { attributes.maxAge = date }
            } else if CookieBytes.equalsIgnoringCase(name, "domain") {
                // An empty value is ignored; a lone "." leaves an empty domain: a host-only cookie.
                guard !value.isEmpty else { continue }
                attributes.domain = HTTPCookie.canonicalDomain(CookieBytes.string(value))
            } else if CookieBytes.equalsIgnoringCase(name, "path") {
                attributes.path =
                    value.first == CookieBytes.slash ? CookieBytes.string(value) : CookieMatching.defaultPath(request.path)
            } else if CookieBytes.equalsIgnoringCase(name, "secure") {
                attributes.secure = true
            } else if CookieBytes.equalsIgnoringCase(name, "httponly") {
                attributes.httpOnly = true
            } else if CookieBytes.equalsIgnoringCase(name, "samesite") {
                attributes.sameSite =
                    if CookieBytes.equalsIgnoringCase(value, "strict") { .strict }
                    else if CookieBytes.equalsIgnoringCase(value, "lax") { .lax }
                    else if CookieBytes.equalsIgnoringCase(value, "none") { .none }
                    else { .unspecified }
            }
        }
        return attributes
    }

    /// §5.2.2: the expiry time a `Max-Age` value gives, or `nil` when the attribute is to be ignored (not a
    /// `-` or a digit first, or a non-digit after it). Zero or less gives the earliest time (expired).
    static func maxAgeExpiry(_ value: ArraySlice<UInt8>, now: Date) -> Date? {
        guard let first = value.first, first == UInt8(ascii: "-") || CookieBytes.isDigit(first) else { return nil }
        let digits = first == UInt8(ascii: "-") ? value.dropFirst() : value
        guard !digits.isEmpty, digits.allSatisfy(CookieBytes.isDigit) else { return nil }
        if first == UInt8(ascii: "-") { return Date.distantPast }
        var seconds = 0
        for digit in digits {
            let (times10, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - 0x30))
            if overflow1 || overflow2 { return Date.distantFuture }
            seconds = sum
        }
        if seconds == 0 { return Date.distantPast }
        return min(now.addingTimeInterval(TimeInterval(seconds)), Date.distantFuture)
    }
}
