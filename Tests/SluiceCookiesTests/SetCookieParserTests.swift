import Foundation
import Testing

@testable import SluiceCookies

private typealias E = ExpectedCookie

/// RFC 6265 §5.2 (and the storage steps of §5.3) as tables, for a response to
/// `https://www.example.com/a/b/c` received at ``t0``.
@Suite("Set-Cookie parsing (RFC 6265 §5.2)")
struct SetCookieParserTests {
    static let requestURL = testURL("https://www.example.com/a/b/c")
    static let rfc1123 = "Sun, 06 Nov 1994 08:49:37 GMT"
    static let later = "Wed, 15 Nov 2023 00:00:00 GMT"

    static func parse(_ field: String, for url: URL = requestURL) -> Result<HTTPCookie, CookieRejection> {
        SetCookieParser.parse(field, for: url, at: t0)
    }

    // MARK: Name and value

    @Test("name-value pairs: trimming, quotes, '=' in values, empty values", arguments: [
        ("a=b", E()),
        ("  a  =  b  ", E()),
        ("\ta\t=\tb\t", E()),
        ("a=\"b\"", E(value: "\"b\"")),
        ("a=\"quoted value\"", E(value: "\"quoted value\"")),
        ("a=\"", E(value: "\"")),
        ("a=", E(value: "")),
        ("a=  ", E(value: "")),
        ("a=b=c", E(value: "b=c")),
        ("a==", E(value: "=")),
        ("a b=c d", E(name: "a b", value: "c d")),
        ("Name=Value", E(name: "Name", value: "Value")),
        ("a=%E2%9C%93", E(value: "%E2%9C%93")),
        ("a=\u{2713}", E(value: "\u{2713}")),
        ("a=b,c", E(value: "b,c")),
    ] as [(String, ExpectedCookie)])
    func nameValue(field: String, expected: ExpectedCookie) throws {
        let cookie = try Self.parse(field).get()
        #expect(expected.matches(cookie), "\(field) gave \(cookie)")
    }

    // MARK: Attributes

    @Test("attributes: values, flags without values, case, the last one winning", arguments: [
        // Path: a value not starting with "/" (or none) gives the default path (§5.1.4).
        ("a=b; Path=/", E(path: "/")),
        ("a=b; path=/x/y/", E(path: "/x/y/")),
        ("a=b; PATH = /x ", E(path: "/x")),
        ("a=b; Path=docs", E(path: "/a/b")),
        ("a=b; Path=", E(path: "/a/b")),
        ("a=b; Path", E(path: "/a/b")),
        ("a=b; Path=/x; Path=/y", E(path: "/y")),
        ("a=b; Path=/x; Path=relative", E(path: "/a/b")),
        // Domain: one leading dot dropped, lowercased, an empty value ignored, "." alone means host-only.
        ("a=b; Domain=example.com", E(domain: "example.com", hostOnly: false)),
        ("a=b; Domain=.example.com", E(domain: "example.com", hostOnly: false)),
        ("a=b; domain=EXAMPLE.Com", E(domain: "example.com", hostOnly: false)),
        ("a=b; Domain=www.example.com", E(domain: "www.example.com", hostOnly: false)),
        ("a=b; Domain=.WWW.example.com", E(domain: "www.example.com", hostOnly: false)),
        ("a=b; Domain=example.com; Domain=", E(domain: "example.com", hostOnly: false)),
        ("a=b; Domain=other.example; Domain=example.com", E(domain: "example.com", hostOnly: false)),
        ("a=b; Domain=", E()),
        ("a=b; Domain=.", E()),
        ("a=b; Domain=example.com; Domain=.", E()),
        // Secure and HttpOnly are flags: a value after them is ignored.
        ("a=b; Secure", E(secure: true)),
        ("a=b; secure=false", E(secure: true)),
        ("a=b; SECURE; secure", E(secure: true)),
        ("a=b; HttpOnly", E(httpOnly: true)),
        ("a=b; httponly=", E(httpOnly: true)),
        ("a=b;Secure;HttpOnly", E(secure: true, httpOnly: true)),
        // SameSite: case-insensitive; anything else is unspecified; the last wins.
        ("a=b; SameSite=Strict", E(sameSite: .strict)),
        ("a=b; samesite=LAX", E(sameSite: .lax)),
        ("a=b; SameSite=none", E(sameSite: .none)),
        ("a=b; SameSite=bogus", E(sameSite: .unspecified)),
        ("a=b; SameSite", E(sameSite: .unspecified)),
        ("a=b; SameSite=Lax; SameSite=Strict", E(sameSite: .strict)),
        ("a=b; SameSite=Lax; SameSite=nonsense", E(sameSite: .unspecified)),
        // Unknown attributes, empty attributes and spaces are ignored.
        ("a=b; Version=1; Comment=x; Priority=High", E()),
        ("a=b;;; ; Secure", E(secure: true)),
        ("a=b ;Path=/x;  Secure ; HttpOnly ", E(path: "/x", secure: true, httpOnly: true)),
        ("a=b; =x; Secure", E(secure: true)),
    ] as [(String, ExpectedCookie)])
    func attributes(field: String, expected: ExpectedCookie) throws {
        let cookie = try Self.parse(field).get()
        #expect(expected.matches(cookie), "\(field) gave \(cookie) \(cookie.domain) \(cookie.path)")
    }

    @Test("Expires and Max-Age: Max-Age wins, bad values are ignored, zero or less expires at once", arguments: [
        ("a=b", E()),
        ("a=b; Max-Age=60", E(expiresIn: 60)),
        ("a=b; max-age=60", E(expiresIn: 60)),
        ("a=b; Max-Age=060", E(expiresIn: 60)),
        ("a=b; Expires=\(later); Max-Age=60", E(expiresIn: 60)),
        ("a=b; Max-Age=60; Expires=\(later)", E(expiresIn: 60)),
        ("a=b; Max-Age=60; Max-Age=120", E(expiresIn: 120)),
        ("a=b; Max-Age=60; Max-Age=x", E(expiresIn: 60)),
        ("a=b; Max-Age=abc; Expires=\(rfc1123)", E(expiresAt: Date(timeIntervalSince1970: 784_111_777))),
        ("a=b; Max-Age=+60", E()),
        ("a=b; Max-Age=6 0", E()),
        ("a=b; Max-Age=60s", E()),
        ("a=b; Max-Age=", E()),
        ("a=b; Max-Age=-", E()),
        ("a=b; Max-Age=1.5", E()),
        ("a=b; Max-Age=0", E(expiresAt: .distantPast)),
        ("a=b; Max-Age=-1", E(expiresAt: .distantPast)),
        ("a=b; Max-Age=-0", E(expiresAt: .distantPast)),
        ("a=b; Max-Age=99999999999999999999999", E(expiresAt: .distantFuture)),
        ("a=b; Expires=\(later)", E(expiresAt: Date(timeIntervalSince1970: 1_700_006_400))),
        ("a=b; expires=\(later)", E(expiresAt: Date(timeIntervalSince1970: 1_700_006_400))),
        ("a=b; Expires=\(rfc1123)", E(expiresAt: Date(timeIntervalSince1970: 784_111_777))),
        ("a=b; Expires=Sunday, 06-Nov-94 08:49:37 GMT", E(expiresAt: Date(timeIntervalSince1970: 784_111_777))),
        ("a=b; Expires=Sun Nov  6 08:49:37 1994", E(expiresAt: Date(timeIntervalSince1970: 784_111_777))),
        ("a=b; Expires=garbage", E()),
        ("a=b; Expires=", E()),
        ("a=b; Expires=\(later); Expires=garbage", E(expiresAt: Date(timeIntervalSince1970: 1_700_006_400))),
        ("a=b; Expires=\(rfc1123); Expires=\(later)", E(expiresAt: Date(timeIntervalSince1970: 1_700_006_400))),
    ] as [(String, ExpectedCookie)])
    func expiry(field: String, expected: ExpectedCookie) throws {
        let cookie = try Self.parse(field).get()
        #expect(expected.matches(cookie), "\(field) gave expires \(String(describing: cookie.expires))")
    }

    @Test("a cookie with Max-Age=0 or a past Expires is expired at once")
    func expiredAtOnce() throws {
        for field in ["a=b; Max-Age=0", "a=b; Max-Age=-5", "a=b; Expires=\(Self.rfc1123)"] {
            #expect(try Self.parse(field).get().isExpired(at: t0), "\(field)")
        }
        #expect(try !Self.parse("a=b; Max-Age=1").get().isExpired(at: t0))
        #expect(try Self.parse("a=b; Max-Age=1").get().isExpired(at: t0.addingTimeInterval(1)))
        #expect(try !Self.parse("a=b").get().isExpired(at: .distantFuture))
    }

    // MARK: Refusals

    @Test("fields that set nothing, and why", arguments: [
        ("", CookieRejection.missingEquals),
        ("ab", .missingEquals),
        ("ab; Path=/", .missingEquals),
        ("; a=b", .missingEquals),
        ("=b", .emptyName),
        (" =b", .emptyName),
        ("\t=b; Path=/", .emptyName),
        ("=", .emptyName),
        ("a\u{01}=b", .controlCharacter),
        ("a=b\u{7F}", .controlCharacter),
        ("a=b\u{00}c", .controlCharacter),
        ("a=b; Path=/\u{0A}", .controlCharacter),
        ("a=b\rSet-Cookie: c=d", .controlCharacter),
        ("a=b\tc", .controlCharacter),
        ("a\tb=c", .controlCharacter),
        (String(repeating: "n", count: 2048) + "=" + String(repeating: "v", count: 2049), .tooLarge),
        ("__Secure-a=b", .prefixMismatch),
        ("__secure-a=b; HttpOnly", .prefixMismatch),
        ("__Host-a=b; Path=/", .prefixMismatch),
        ("__Host-a=b; Secure", .prefixMismatch),
        ("__Host-a=b; Secure; Path=/; Domain=www.example.com", .prefixMismatch),
        ("__HOST-a=b; Secure; Path=/x", .prefixMismatch),
    ] as [(String, CookieRejection)])
    func refused(field: String, rejection: CookieRejection) {
        #expect(Self.parse(field) == .failure(rejection), "\(field.prefix(60))")
    }

    @Test("the size limit counts the name and the value, 4096 bytes in all")
    func sizeLimit() throws {
        let name = String(repeating: "n", count: 2048)
        #expect(try Self.parse(name + "=" + String(repeating: "v", count: 2048)).get().value.utf8.count == 2048)
        #expect(Self.parse(name + "=" + String(repeating: "v", count: 2049)) == .failure(.tooLarge))
    }

    @Test("the name prefixes accept cookies that meet their requirements", arguments: [
        "__Secure-a=b; Secure", "__Secure-a=b; Secure; Domain=example.com; Path=/x", "__Host-a=b; Secure; Path=/",
        "__Host-a=b; Secure; Path=/; HttpOnly; SameSite=Strict",
    ])
    func prefixesAccepted(field: String) throws {
        #expect(try Self.parse(field).get().secure)
    }

    @Test("a Secure cookie from a URL that is not secure is refused; from https and wss it is not", arguments: [
        ("http://www.example.com/", false), ("ws://www.example.com/", false), ("https://www.example.com/", true),
        ("wss://www.example.com/", true), ("HTTPS://www.example.com/", true),
    ])
    func secureOrigin(url: String, accepted: Bool) {
        let result = Self.parse("a=b; Secure", for: testURL(url))
        #expect(accepted ? (try? result.get()) != nil : result == .failure(.secureFromInsecureOrigin), "\(url)")
    }

    @Test("URLs that cannot carry cookies", arguments: ["ftp://www.example.com/", "file:///tmp/x", "mailto:a@example.com"])
    func unsupportedURLs(url: String) {
        #expect(Self.parse("a=b", for: testURL(url)) == .failure(.unsupportedURL))
    }

    // MARK: Default path

    @Test("the default path (§5.1.4)", arguments: [
        ("http://h.example", "/"), ("http://h.example/", "/"), ("http://h.example/a", "/"), ("http://h.example/a/", "/a"),
        ("http://h.example/a/b", "/a"), ("http://h.example/a/b/", "/a/b"), ("http://h.example/a/b/c?x=/y/z", "/a/b"),
        ("http://h.example//", "/"), ("http://h.example/a%2Fb/c", "/a%2Fb"), ("http://h.example/docs#x/y", "/"),
    ])
    func defaultPath(url: String, path: String) throws {
        #expect(try Self.parse("a=b", for: testURL(url)).get().path == path, "\(url)")
    }
}
