import Foundation

/// One cookie as a ``CookieStore`` keeps it: the fields of RFC 6265 §5.3's storage model.
///
/// A cookie is identified by its ``name``, ``domain`` and ``path``: a second cookie with the same three replaces
/// the first. ``SetCookieParser`` makes cookies from `Set-Cookie` fields; a program may also make one itself and
/// put it in a store with ``CookieStore/set(_:at:)``.
public struct HTTPCookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The cookie's name, compared byte for byte (case-sensitive). Never empty for a cookie parsed from a
    /// `Set-Cookie` field.
    public var name: String

    /// The cookie's value as the server wrote it; double quotes around it are part of the value (RFC 6265).
    public var value: String

    /// The domain the cookie belongs to: lowercased (ASCII letters only), without a leading dot. Setting it
    /// canonicalizes the new value the same way.
    public var domain: String {
        didSet { domain = HTTPCookie.canonicalDomain(domain) }
    }

    /// Whether the cookie is sent to ``domain`` only (`true`, a cookie set without a `Domain` attribute), or to
    /// ``domain`` and every subdomain of it (`false`).
    public var hostOnly: Bool

    /// The path the cookie is sent for: the request's path must path-match it (RFC 6265 §5.1.4).
    public var path: String

    /// When the cookie expires; `nil` for a session cookie, which lives as long as the store that holds it.
    public var expires: Date?

    /// When the cookie was first stored. A replacement keeps the creation time of the cookie it replaces.
    public var creation: Date

    /// When the cookie was last stored or sent. The store evicts the cookies with the oldest last access first.
    public var lastAccess: Date

    /// Whether the cookie is sent over secure connections (`https`, `wss`) only.
    public var secure: Bool

    /// Whether the server marked the cookie `HttpOnly`. A client sends such cookies like any other; the flag
    /// matters to scripts in a browser, and it is kept so a cookie file can carry it.
    public var httpOnly: Bool

    /// The `SameSite` attribute as the server sent it; ``HTTPCookie/SameSite/unspecified`` when absent or unknown.
    public var sameSite: SameSite

    /// Creates a cookie.
    ///
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value.
    ///   - domain: The domain; lowercased, and one leading dot removed.
    ///   - hostOnly: Whether the cookie is sent to `domain` only. Default `true`.
    ///   - path: The path. Default `"/"`.
    ///   - expires: The expiry time; `nil` (the default) makes a session cookie.
    ///   - creation: The creation time. Default: now.
    ///   - lastAccess: The last access time. Default `nil`: the creation time.
    ///   - secure: Whether the cookie is sent over secure connections only. Default `false`.
    ///   - httpOnly: Whether the cookie is marked `HttpOnly`. Default `false`.
    ///   - sameSite: The `SameSite` attribute. Default ``HTTPCookie/SameSite/unspecified``.
    public init(
        name: String,
        value: String,
        domain: String,
        hostOnly: Bool = true,
        path: String = "/",
        expires: Date? = nil,
        creation: Date = Date(),
        lastAccess: Date? = nil,
        secure: Bool = false,
        httpOnly: Bool = false,
        sameSite: SameSite = .unspecified
    ) {
        self.name = name
        self.value = value
        self.domain = HTTPCookie.canonicalDomain(domain)
        self.hostOnly = hostOnly
        self.path = path
        self.expires = expires
        self.creation = creation
        self.lastAccess = lastAccess ?? creation
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// Whether the cookie is a session cookie (no expiry time).
    public var isSessionCookie: Bool { expires == nil }

    /// Whether the cookie has expired at `date`: its expiry time is `date` or earlier. A session cookie never
    /// expires.
    ///
    /// - Parameter date: The time to judge at.
    public func isExpired(at date: Date) -> Bool {
        guard let expires else { return false }
        return expires <= date
    }

    /// `name=value`, as a `Cookie` request field carries it.
    public var description: String { "\(name)=\(value)" }

    private enum CodingKeys: String, CodingKey {
        case name, value, domain, hostOnly, path, expires, creation, lastAccess, secure, httpOnly, sameSite
    }

    /// Decodes a cookie, canonicalizing its domain as ``init(name:value:domain:hostOnly:path:expires:creation:lastAccess:secure:httpOnly:sameSite:)``
    /// does.
    ///
    /// - Throws: `DecodingError` when a field is missing or has the wrong type. `sameSite` may be missing
    ///   (``HTTPCookie/SameSite/unspecified``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            value: try container.decode(String.self, forKey: .value),
            domain: try container.decode(String.self, forKey: .domain),
            hostOnly: try container.decode(Bool.self, forKey: .hostOnly),
            path: try container.decode(String.self, forKey: .path),
            expires: try container.decodeIfPresent(Date.self, forKey: .expires),
            creation: try container.decode(Date.self, forKey: .creation),
            lastAccess: try container.decode(Date.self, forKey: .lastAccess),
            secure: try container.decode(Bool.self, forKey: .secure),
            httpOnly: try container.decode(Bool.self, forKey: .httpOnly),
            sameSite: try container.decodeIfPresent(SameSite.self, forKey: .sameSite) ?? .unspecified)
    }

    /// Encodes every field; a session cookie has no `expires` key.
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(value, forKey: .value)
        try container.encode(domain, forKey: .domain)
        try container.encode(hostOnly, forKey: .hostOnly)
        try container.encode(path, forKey: .path)
        try container.encodeIfPresent(expires, forKey: .expires)
        try container.encode(creation, forKey: .creation)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(secure, forKey: .secure)
        try container.encode(httpOnly, forKey: .httpOnly)
        try container.encode(sameSite, forKey: .sameSite)
    }

    /// `domain` with ASCII letters lowercased and one leading dot removed.
    static func canonicalDomain(_ domain: String) -> String {
        var bytes = Array(domain.utf8)
        if bytes.first == UInt8(ascii: ".") { bytes.removeFirst() }
        for index in bytes.indices { bytes[index] = CookieBytes.lowercased(bytes[index]) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
