import Foundation

/// A thread-safe cookie store: takes cookies from responses' `Set-Cookie` fields and gives the `Cookie` field for
/// requests, by RFC 6265's rules (and RFC 6265bis's safety rules; see ``SetCookieParser``).
///
/// - Storing (§5.3): a cookie replaces the stored cookie with the same name, domain and path, and keeps that
///   cookie's creation time; an expired cookie only removes it (how servers delete cookies). A cookie that is not
///   `Secure`, from a connection that is not secure, may not replace or shadow a `Secure` cookie of the same name
///   (RFC 6265bis).
/// - Limits: at most ``maximumCookiesPerDomain`` cookies (default 50) for one registrable domain (`example.co.uk`
///   and all its subdomains count together; an IP address counts alone) and ``maximumCookies`` (default 3000) in
///   all. Past a limit, expired cookies go first, then those with the oldest last access; the cookie being stored
///   is never the one evicted.
/// - Sending (§5.4): a host-only cookie goes to its host only, any other to its domain and every subdomain; the
///   request path must path-match the cookie's (`/docs` matches `/docs`, `/docs/` and `/docs/web`, not
///   `/docsets`); a `Secure` cookie goes over `https` and `wss` only. Longer paths come first, then earlier
///   creation times. Sending a cookie updates its last access time; expired cookies are removed as they are met.
/// - `SameSite` is stored, not enforced: that needs the site that started a request, which a client does not have,
///   so every cookie is sent as it would be for a same-site request. `HttpOnly` cookies are sent like any other
///   (this is an HTTP API, not a script).
///
/// The store lives in memory; ``load(from:at:)`` and ``save(to:includingSessionCookies:at:)`` read and write the
/// Netscape cookie file that curl's `-b` and `-c` use.
public final class CookieStore: Sendable {
    /// The most cookies kept for one registrable domain.
    public let maximumCookiesPerDomain: Int
    /// The most cookies kept in all.
    public let maximumCookies: Int

    private let jar: Locked<CookieJar>

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - maximumCookiesPerDomain: The most cookies kept for one registrable domain. Default 50; values below 1
    ///     count as 1.
    ///   - maximumCookies: The most cookies kept in all. Default 3000; values below 1 count as 1.
    public init(maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000) {
        let jar = CookieJar(maximumPerDomain: maximumCookiesPerDomain, maximumTotal: maximumCookies)
        self.maximumCookiesPerDomain = jar.maximumPerDomain
        self.maximumCookies = jar.maximumTotal
        self.jar = Locked(jar)
    }

    // MARK: - From responses

    /// Stores the cookies of every `Set-Cookie` field of a response (each field on its own; fields are never split
    /// at commas).
    ///
    /// - Parameters:
    ///   - responseHeaders: The response's header fields.
    ///   - url: The URL of the request the response answered.
    ///   - now: When the response arrived. Default: now.
    /// - Returns: For each `Set-Cookie` field in order, the cookie stored (or, when already expired, the cookie
    ///   whose arrival deleted its namesake) or why the field set nothing.
    @discardableResult
    public func setCookies(from responseHeaders: HTTPHeaders, for url: URL, at now: Date = Date())
        -> [Result<HTTPCookie, CookieRejection>]
    {
        let fields = responseHeaders.values(for: "Set-Cookie")
        guard !fields.isEmpty else { return [] }
        guard let request = CookieRequest(url) else { return fields.map { _ in .failure(.unsupportedURL) } }
        let parsed = fields.map { SetCookieParser.parse(Array($0.utf8), request: request, now: now) }
        return jar.withLock { jar in parsed.map { store($0, into: &jar, from: request, now: now) } }
    }

    /// Stores the cookie of one `Set-Cookie` field value.
    ///
    /// - Parameters:
    ///   - setCookie: The field's value.
    ///   - url: The URL of the request the response answered.
    ///   - now: When the response arrived. Default: now.
    /// - Returns: The cookie stored (or, when already expired, the cookie whose arrival deleted its namesake), or why
    ///   the field set nothing.
    @discardableResult
    public func setCookie(_ setCookie: String, for url: URL, at now: Date = Date()) -> Result<HTTPCookie, CookieRejection> {
        guard let request = CookieRequest(url) else { return .failure(.unsupportedURL) }
        let parsed = SetCookieParser.parse(Array(setCookie.utf8), request: request, now: now)
        return jar.withLock { store(parsed, into: &$0, from: request, now: now) }
    }

    private func store(
        _ parsed: Result<HTTPCookie, CookieRejection>, into jar: inout CookieJar, from request: CookieRequest, now: Date
    ) -> Result<HTTPCookie, CookieRejection> {
        guard case .success(let cookie) = parsed else { return parsed }
        if !request.isSecure, !cookie.secure, jar.overlaysSecureCookie(cookie) { return .failure(.overlaysSecureCookie) }
        return .success(jar.store(cookie, now: now) ?? cookie)
    }

    // MARK: - For requests

    /// The `Cookie` field value for a request to `url`: `name=value` pairs joined by `"; "`, in RFC 6265 §5.4's
    /// order. The cookies sent get `now` as their last access time.
    ///
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - now: When the request is sent. Default: now.
    /// - Returns: The value, or `nil` when no cookie goes with the request (or `url` is not `http`, `https`, `ws`
    ///   or `wss`).
    public func cookieHeader(for url: URL, at now: Date = Date()) -> String? {
        guard let request = CookieRequest(url) else { return nil }
        let cookies = jar.withLock { $0.select(for: request, now: now, touch: true) }
        guard !cookies.isEmpty else { return nil }
        return cookies.map(\.description).joined(separator: "; ")
    }

    /// The cookies a request to `url` would carry, in sending order, without changing their last access time.
    ///
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - now: The time to judge expiry at. Default: now.
    /// - Returns: The cookies; empty when none (or `url` is not `http`, `https`, `ws` or `wss`).
    public func cookies(for url: URL, at now: Date = Date()) -> [HTTPCookie] {
        guard let request = CookieRequest(url) else { return [] }
        return jar.withLock { $0.select(for: request, now: now, touch: false) }
    }

    // MARK: - Managing

    /// The unexpired cookies stored for exactly `domain` (lowercased, one leading dot ignored) — not those of its
    /// parent domains or subdomains — longest path first.
    ///
    /// - Parameters:
    ///   - domain: The domain.
    ///   - now: The time to judge expiry at. Default: now.
    public func cookies(forDomain domain: String, at now: Date = Date()) -> [HTTPCookie] {
        jar.withLock { $0.cookies(forDomain: domain, at: now) }
    }

    /// Every stored cookie, in the order first stored (earlier creation first). Cookies that expired since the store
    /// last looked at them may be among them; ``removeExpiredCookies(at:)`` removes them.
    public var allCookies: [HTTPCookie] { jar.withLock { $0.all } }

    /// How many cookies are stored (expired ones not yet removed included).
    public var count: Int { jar.withLock { $0.count } }

    /// Stores `cookie` as a response would (RFC 6265 §5.3 step 11: it replaces the cookie with its name, domain and
    /// path, keeping that one's creation time; an expired cookie only removes it), then applies the limits. No
    /// rule of ``SetCookieParser`` is checked: the program is trusted.
    ///
    /// - Parameters:
    ///   - cookie: The cookie.
    ///   - now: The time to judge expiry at. Default: now.
    public func set(_ cookie: HTTPCookie, at now: Date = Date()) {
        jar.withLock { _ = $0.store(cookie, now: now) }
    }

    /// Removes the cookie with this name, domain and path (all compared byte for byte; the domain lowercased and one
    /// leading dot ignored).
    ///
    /// - Returns: Whether there was such a cookie.
    @discardableResult
    public func delete(name: String, domain: String, path: String) -> Bool {
        jar.withLock { $0.remove(name: name, domain: domain, path: path) }
    }

    /// Removes every cookie.
    public func deleteAll() {
        jar.withLock { $0.removeAll() }
    }

    /// Removes the cookies expired at `now`.
    ///
    /// - Parameter now: The time to judge expiry at. Default: now.
    /// - Returns: How many were removed.
    @discardableResult
    public func removeExpiredCookies(at now: Date = Date()) -> Int {
        jar.withLock { $0.removeExpired(at: now) }
    }

    /// Stores every cookie of `cookies` in order, as ``set(_:at:)`` does; for the file loader.
    func setAll(_ cookies: [HTTPCookie], at now: Date) {
        jar.withLock { jar in
            for cookie in cookies { jar.store(cookie, now: now) }
        }
    }
}
