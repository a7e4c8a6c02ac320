import Foundation

/// The Netscape cookie file, as curl's `-b` reads it and `-c` writes it: one cookie a line, seven fields separated
/// by tabs —
///
///     domain  includeSubdomains  path  secure  expires  name  value
///
/// `includeSubdomains` and `secure` are `TRUE` or `FALSE`; `expires` is seconds since 1970, `0` for a session
/// cookie. A domain cookie's domain is written with a leading dot. `#HttpOnly_` before the domain marks an
/// `HttpOnly` cookie; other lines starting with `#`, and blank lines, are comments. The format has no place for
/// `SameSite`: curl refuses a line with an eighth field, so the attribute does not survive the file.
enum NetscapeCookieFile {
    /// The first line curl writes and looks for.
    static let header = """
        # Netscape HTTP Cookie File
        # https://curl.se/docs/http-cookies.html
        # This file was written by Sluice's CookieStore. Edit at your own risk.


        """

    private static let httpOnlyPrefix = Array("#HttpOnly_".utf8)

    /// The cookies of the file's bytes, in file order; malformed lines are skipped. Each cookie gets `now` as its
    /// creation and last access time; session cookies (`expires` 0) are kept, cookies expired at `now` are not.
    static func parse(_ bytes: some Collection<UInt8>, now: Date) -> [HTTPCookie] {
        Array(bytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).compactMap { line in
            var line = line
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            return parseLine(line, now: now)
        }
    }

    /// One line's cookie, or `nil` for a comment, a blank line or a malformed line.
    static func parseLine(_ line: ArraySlice<UInt8>, now: Date) -> HTTPCookie? {
        var line = line
        var httpOnly = false
        if line.starts(with: httpOnlyPrefix) {
            httpOnly = true
            line = line.dropFirst(httpOnlyPrefix.count)
        } else if line.first == UInt8(ascii: "#") {
            return nil
        }
        guard !line.allSatisfy(CookieBytes.isWhitespace) else { return nil }
        var fields = line.split(separator: CookieBytes.tab, omittingEmptySubsequences: false)
        // curl accepts a line whose empty value lost its tab.
        if fields.count == 6 { fields.append([]) }
        guard fields.count == 7 else { return nil }
        let domainField = fields[0], path = fields[2], name = fields[5], value = fields[6]
        guard let includeSubdomains = flag(fields[1]), let secure = flag(fields[3]),
            let expiresSeconds = integer(fields[4])
        else { return nil }
        let domain = HTTPCookie.canonicalDomain(CookieBytes.string(domainField))
        guard !domain.isEmpty, path.first == CookieBytes.slash, !name.isEmpty,
            !line.contains(where: CookieBytes.isControlExceptTab)
        else { return nil }
        let expires: Date? = expiresSeconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expiresSeconds))
        let cookie = HTTPCookie(
            name: CookieBytes.string(name), value: CookieBytes.string(value), domain: domain,
            hostOnly: !includeSubdomains || CookieMatching.isIPAddress(domain), path: CookieBytes.string(path),
            expires: expires, creation: now, lastAccess: now, secure: secure, httpOnly: httpOnly)
        return cookie.isExpired(at: now) ? nil : cookie
    }

    /// `TRUE` or `FALSE`, in any case.
    private static func flag(_ field: ArraySlice<UInt8>) -> Bool? {
        if CookieBytes.equalsIgnoringCase(field, "true") { return true }
        if CookieBytes.equalsIgnoringCase(field, "false") { return false }
        return nil
    }

    /// A decimal integer with an optional `-`, or `nil` (too long for 64 bits included).
    private static func integer(_ field: ArraySlice<UInt8>) -> Int64? {
        Int64(CookieBytes.string(field))
    }

    /// The file for `cookies`, in the order given. A cookie a line cannot carry (a tab, CR or LF in a field, an
    /// empty name, a domain starting with `#`) is left out.
    static func format(_ cookies: [HTTPCookie]) -> String {
        var text = header
        for cookie in cookies {
            guard let line = line(for: cookie) else { continue }
            text += line
            text += "\n"
        }
        return text
    }

    /// The line for `cookie`, or `nil` when a line cannot carry it.
    static func line(for cookie: HTTPCookie) -> String? {
        let fields = [cookie.domain, cookie.path, cookie.name, cookie.value]
        guard !cookie.name.isEmpty, !cookie.domain.isEmpty, cookie.domain.utf8.first != UInt8(ascii: "#"),
            !fields.contains(where: { $0.utf8.contains { $0 == CookieBytes.tab || CookieBytes.isControlExceptTab($0) } })
        else { return nil }
        let expires: Int64 =
            if let date = cookie.expires { max(1, Int64(date.timeIntervalSince1970.rounded(.down))) } else { 0 }
        let domain = cookie.hostOnly ? cookie.domain : "." + cookie.domain
        return (cookie.httpOnly ? "#HttpOnly_" : "")
            + [domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE",
               String(expires), cookie.name, cookie.value].joined(separator: "\t")
    }
}
