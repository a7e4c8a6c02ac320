import Foundation
import Testing

@testable import SluiceCookies

/// The Domain attribute with the public-suffix list (libpsl), domain matching (§5.1.3), path matching (§5.1.4),
/// and what never crosses from one host to another.
@Suite("Cookie domains and paths")
struct CookieDomainTests {
    // MARK: Domain attribute

    @Test("Domain attributes a host may and may not set", arguments: [
        // Public suffixes are refused, from either section of the list.
        ("http://example.co.uk/", "co.uk", CookieRejection.publicSuffix(domain: "co.uk")),
        ("http://example.co.uk/", "uk", .publicSuffix(domain: "uk")),
        ("http://www.example.co.uk/", "co.uk", .publicSuffix(domain: "co.uk")),
        ("http://www.example.com/", "com", .publicSuffix(domain: "com")),
        ("http://www.example.com/", ".COM", .publicSuffix(domain: "com")),
        ("http://foo.github.io/", "github.io", .publicSuffix(domain: "github.io")),
        ("http://a.b.example/", "example", .publicSuffix(domain: "example")),
        // The host must domain-match the attribute: itself or a parent, at a dot.
        ("http://www.example.com/", "other.com", .domainMismatch(domain: "other.com")),
        ("http://www.example.com/", "ample.com", .domainMismatch(domain: "ample.com")),
        ("http://www.example.com/", "w.example.com", .domainMismatch(domain: "w.example.com")),
        ("http://www.example.com/", "sub.www.example.com", .domainMismatch(domain: "sub.www.example.com")),
        ("http://a.example.com/", "b.example.com", .domainMismatch(domain: "b.example.com")),
        ("http://example.com/", "www.example.com", .domainMismatch(domain: "www.example.com")),
        ("http://www.example.com/", "example.com.", .domainMismatch(domain: "example.com.")),
        // An IP address matches itself only.
        ("http://192.168.0.1/", "168.0.1", .domainMismatch(domain: "168.0.1")),
        ("http://192.168.0.1/", "0.1", .domainMismatch(domain: "0.1")),
        ("http://192.168.0.1/", "192.168.0.10", .domainMismatch(domain: "192.168.0.10")),
    ])
    func refusedDomains(url: String, domain: String, rejection: CookieRejection) {
        #expect(SetCookieParser.parse("a=b; Domain=\(domain)", for: testURL(url), at: t0) == .failure(rejection))
    }

    @Test("Domain attributes that are accepted, and the cookie they make", arguments: [
        ("http://www.example.co.uk/", "example.co.uk", "example.co.uk", false),
        ("http://www.example.co.uk/", ".example.co.uk", "example.co.uk", false),
        ("http://www.example.co.uk/", "www.example.co.uk", "www.example.co.uk", false),
        ("http://a.b.c.example.com/", "b.c.example.com", "b.c.example.com", false),
        ("http://WWW.Example.COM/", "example.com", "example.com", false),
        // A public suffix that is the host itself makes a host-only cookie.
        ("http://github.io/", "github.io", "github.io", true),
        ("http://localhost/", "localhost", "localhost", true),
        ("http://co.uk/", "CO.UK", "co.uk", true),
        // An IP address: itself only, and always host-only.
        ("http://192.168.0.1/", "192.168.0.1", "192.168.0.1", true),
        ("http://[::1]:8080/", "::1", "::1", true),
    ])
    func acceptedDomains(url: String, attribute: String, domain: String, hostOnly: Bool) throws {
        let cookie = try SetCookieParser.parse("a=b; Domain=\(attribute)", for: testURL(url), at: t0).get()
        #expect(cookie.domain == domain)
        #expect(cookie.hostOnly == hostOnly)
    }

    @Test("without Domain, the cookie is host-only for the request's host", arguments: [
        ("http://www.example.com/", "www.example.com"), ("http://WWW.EXAMPLE.COM/", "www.example.com"),
        ("http://127.0.0.1:8080/", "127.0.0.1"), ("http://[::1]/", "::1"), ("http://[2001:DB8::1]/", "2001:db8::1"),
        ("http://b\u{FC}cher.example/", "xn--bcher-kva.example"),
    ])
    func hostOnly(url: String, domain: String) throws {
        let cookie = try SetCookieParser.parse("a=b", for: testURL(url), at: t0).get()
        #expect(cookie.domain == domain)
        #expect(cookie.hostOnly)
    }

    // MARK: What is sent where

    /// Sets `field` from `from`, then asks for the Cookie field of each of `to`.
    static func sent(_ field: String, from: String, to urls: [String]) -> [String: Bool] {
        let store = CookieStore()
        _ = store.setCookie(field, for: testURL(from), at: t0)
        return Dictionary(uniqueKeysWithValues: urls.map { ($0, store.cookieHeader(for: testURL($0), at: t0) != nil) })
    }

    @Test("host-only cookies never go to subdomains, parents or siblings")
    func hostOnlyNeverToSubdomains() {
        let sent = Self.sent(
            "a=b", from: "http://example.com/",
            to: ["http://example.com/x", "http://EXAMPLE.com/", "http://www.example.com/", "http://a.b.example.com/",
                 "http://com/", "http://other.com/", "http://example.com.evil/", "http://notexample.com/"])
        #expect(sent == [
            "http://example.com/x": true, "http://EXAMPLE.com/": true, "http://www.example.com/": false,
            "http://a.b.example.com/": false, "http://com/": false, "http://other.com/": false,
            "http://example.com.evil/": false, "http://notexample.com/": false,
        ])
    }

    @Test("domain cookies go to the domain and its subdomains, at a dot only")
    func domainCookies() {
        let sent = Self.sent(
            "a=b; Domain=example.com", from: "http://www.example.com/",
            to: ["http://example.com/", "http://www.example.com/", "http://a.b.example.com/", "http://notexample.com/",
                 "http://example.com.evil/", "http://xexample.com/", "http://com/"])
        #expect(sent == [
            "http://example.com/": true, "http://www.example.com/": true, "http://a.b.example.com/": true,
            "http://notexample.com/": false, "http://example.com.evil/": false, "http://xexample.com/": false,
            "http://com/": false,
        ])
    }

    @Test("cookies never cross hosts: a.example never gets b.example's cookies")
    func noCrossHost() {
        let store = CookieStore()
        _ = store.setCookie("host=b", for: testURL("http://b.example/"), at: t0)
        _ = store.setCookie("dom=b; Domain=b.example", for: testURL("http://b.example/"), at: t0)
        #expect(store.setCookie("evil=1; Domain=a.example", for: testURL("http://b.example/"), at: t0)
            == .failure(.domainMismatch(domain: "a.example")))
        #expect(store.cookieHeader(for: testURL("http://a.example/"), at: t0) == nil)
        #expect(store.cookieHeader(for: testURL("http://x.a.example/"), at: t0) == nil)
        #expect(store.cookieHeader(for: testURL("http://b.example/"), at: t0) == "host=b; dom=b")
        #expect(store.cookieHeader(for: testURL("http://x.b.example/"), at: t0) == "dom=b")
    }

    @Test("an IP-address host gets host-only cookies only, and only its own")
    func ipAddresses() {
        let store = CookieStore()
        _ = store.setCookie("ip=1; Domain=10.0.0.1", for: testURL("http://10.0.0.1/"), at: t0)
        _ = store.setCookie("plain=1", for: testURL("http://10.0.0.1/"), at: t0)
        _ = store.setCookie("d=1; Domain=0.0.1", for: testURL("http://10.0.0.1/"), at: t0)
        #expect(store.allCookies.allSatisfy { $0.hostOnly })
        #expect(store.cookieHeader(for: testURL("http://10.0.0.1/"), at: t0) == "ip=1; plain=1")
        for other in ["http://110.0.0.1/", "http://10.0.0.10/", "http://1.10.0.0.1/", "http://0.0.1/"] {
            #expect(store.cookieHeader(for: testURL(other), at: t0) == nil, "\(other)")
        }
        #expect(store.cookieHeader(for: testURL("http://[::1]/"), at: t0) == nil)
    }

    // MARK: Matching rules

    @Test("domain-match (§5.1.3)", arguments: [
        ("example.com", "example.com", true), ("www.example.com", "example.com", true),
        ("a.b.example.com", "example.com", true), ("notexample.com", "example.com", false),
        ("example.com", "www.example.com", false), ("com", "example.com", false), ("example.com", "", false),
        ("1.2.3.4", "1.2.3.4", true), ("1.2.3.4", "2.3.4", false), ("::1", ":1", false),
    ])
    func domainMatch(string: String, domain: String, matches: Bool) {
        #expect(CookieMatching.domainMatches(string, domain) == matches)
    }

    @Test("path-match (§5.1.4): /docs matches /docs, /docs/, /docs/web, not /docsets", arguments: [
        ("/docs", "/docs", true), ("/docs/", "/docs", true), ("/docs/web", "/docs", true), ("/docs/web/x", "/docs", true),
        ("/docsets", "/docs", false), ("/doc", "/docs", false), ("/Docs", "/docs", false), ("/", "/docs", false),
        ("/docs/web", "/docs/", true), ("/docs", "/docs/", false), ("/docs/", "/docs/", true),
        ("/anything", "/", true), ("/", "/", true), ("/docs%2Fweb", "/docs", false),
    ])
    func pathMatch(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(CookieMatching.pathMatches(requestPath, cookiePath) == matches)
    }

    @Test("a cookie for /docs goes to /docs, /docs/ and /docs/web, not /docsets")
    func pathPrefixIsNotEnough() {
        let store = CookieStore()
        _ = store.setCookie("d=1; Path=/docs", for: testURL("http://h.example/"), at: t0)
        for (path, sent) in [("/docs", true), ("/docs/", true), ("/docs/web", true), ("/docsets", false), ("/", false),
                             ("/doc", false), ("/docs?x", true)] {
            #expect((store.cookieHeader(for: testURL("http://h.example" + path), at: t0) != nil) == sent, "\(path)")
        }
    }

    @Test("the public-suffix list knows both sections and the '*' rule")
    func publicSuffixList() {
        for suffix in ["com", "co.uk", "uk", "github.io", "localhost", "example", "xn--p1ai"] {
            #expect(PublicSuffixList.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.com", "example.co.uk", "foo.github.io", "127.0.0.1", ""] {
            #expect(!PublicSuffixList.isPublicSuffix(domain), "\(domain)")
        }
        #expect(PublicSuffixList.registrableDomain(of: "a.b.example.co.uk") == "example.co.uk")
        #expect(PublicSuffixList.registrableDomain(of: "10.0.0.1") == "10.0.0.1")
        #expect(PublicSuffixList.registrableDomain(of: "co.uk") == "co.uk")
    }
}
