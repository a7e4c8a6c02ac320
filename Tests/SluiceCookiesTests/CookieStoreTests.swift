import Foundation
import Testing

@testable import SluiceCookies

/// The store's rules: replacement (§5.3 step 11), eviction, sending order (§5.4), Secure, expiry.
@Suite("Cookie store")
struct CookieStoreTests {
    static let site = testURL("https://www.example.com/")

    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    // MARK: Replacement

    @Test("a cookie with the same name, domain and path replaces the old one and keeps its creation time")
    func replacement() throws {
        let store = CookieStore()
        store.setCookie("a=1", for: Self.site, at: t0)
        let replaced = try store.setCookie("a=2; HttpOnly", for: Self.site, at: Self.at(10)).get()
        #expect(replaced.creation == t0)
        #expect(store.count == 1)
        let cookie = try #require(store.allCookies.first)
        #expect(cookie.value == "2")
        #expect(cookie.httpOnly)
        #expect(cookie.creation == t0)
        #expect(cookie.lastAccess == Self.at(10))
    }

    @Test("different paths, names or domains are different cookies; names compare case-sensitively")
    func distinctSlots() {
        let store = CookieStore()
        store.setCookie("a=1; Path=/", for: Self.site, at: t0)
        store.setCookie("a=2; Path=/x", for: Self.site, at: t0)
        store.setCookie("A=3; Path=/", for: Self.site, at: t0)
        store.setCookie("a=4; Domain=example.com; Path=/", for: Self.site, at: t0)
        #expect(store.count == 4)
        #expect(store.cookieHeader(for: testURL("https://www.example.com/x"), at: t0) == "a=2; a=1; A=3; a=4")
    }

    @Test("a host-only cookie and a domain cookie with the same name, domain and path are the same cookie")
    func hostOnlyAndDomainShareASlot() throws {
        let store = CookieStore()
        store.setCookie("a=1", for: testURL("https://example.com/"), at: t0)
        store.setCookie("a=2; Domain=example.com", for: testURL("https://example.com/"), at: Self.at(1))
        let cookie = try #require(store.allCookies.first)
        #expect(store.count == 1)
        #expect(!cookie.hostOnly)
        #expect(cookie.value == "2")
        #expect(cookie.creation == t0)
    }

    @Test("an expired cookie deletes its namesake and is not stored", arguments: [
        "a=x; Max-Age=0", "a=x; Max-Age=-1", "a=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    ])
    func deletionBySetCookie(field: String) {
        let store = CookieStore()
        store.setCookie("a=1; Max-Age=3600", for: Self.site, at: t0)
        store.setCookie("b=1", for: Self.site, at: t0)
        store.setCookie(field, for: Self.site, at: Self.at(1))
        #expect(store.allCookies.map(\.name) == ["b"])
        // A deletion with another path deletes nothing.
        store.setCookie("b=x; Max-Age=0; Path=/other", for: Self.site, at: Self.at(2))
        #expect(store.allCookies.map(\.name) == ["b"])
    }

    // MARK: Sending

    @Test("longer paths first, then earlier creation; replacing keeps a cookie's place")
    func ordering() {
        let store = CookieStore()
        store.setCookie("root=1; Path=/", for: Self.site, at: t0)
        store.setCookie("x=1; Path=/a", for: Self.site, at: Self.at(1))
        store.setCookie("deep=1; Path=/a/b", for: Self.site, at: Self.at(2))
        store.setCookie("y=1; Path=/a", for: Self.site, at: Self.at(3))
        store.setCookie("z=1; Path=/a", for: Self.site, at: Self.at(0.5))
        #expect(store.cookieHeader(for: testURL("https://www.example.com/a/b/c"), at: Self.at(4))
            == "deep=1; z=1; x=1; y=1; root=1")
        store.setCookie("x=2; Path=/a", for: Self.site, at: Self.at(5))
        #expect(store.cookieHeader(for: testURL("https://www.example.com/a/"), at: Self.at(6)) == "z=1; x=2; y=1; root=1")
        #expect(store.cookieHeader(for: testURL("https://www.example.com/"), at: Self.at(6)) == "root=1")
    }

    @Test("cookies of equal path and creation time go in the order first stored")
    func sameCreationTime() {
        let store = CookieStore()
        let names = ["q", "b", "z", "a", "m"]
        for name in names { store.setCookie("\(name)=1", for: Self.site, at: t0) }
        #expect(store.cookieHeader(for: Self.site, at: t0) == names.map { "\($0)=1" }.joined(separator: "; "))
    }

    @Test("Secure cookies go over https and wss only; a Secure cookie over http is refused")
    func secure() {
        let store = CookieStore()
        #expect(store.setCookie("s=1; Secure", for: testURL("http://www.example.com/"), at: t0)
            == .failure(.secureFromInsecureOrigin))
        #expect(store.count == 0)
        store.setCookie("s=1; Secure", for: Self.site, at: t0)
        store.setCookie("p=1", for: Self.site, at: t0)
        #expect(store.cookieHeader(for: testURL("http://www.example.com/"), at: t0) == "p=1")
        #expect(store.cookieHeader(for: testURL("ws://www.example.com/"), at: t0) == "p=1")
        #expect(store.cookieHeader(for: testURL("https://www.example.com/"), at: t0) == "s=1; p=1")
        #expect(store.cookieHeader(for: testURL("wss://www.example.com/"), at: t0) == "s=1; p=1")
    }

    @Test("a cookie from http may not replace or shadow a Secure cookie of the same name")
    func secureCookiesStayIntact() {
        let store = CookieStore()
        store.setCookie("s=secret; Secure; Domain=example.com", for: Self.site, at: t0)
        let insecure = testURL("http://www.example.com/x/y")
        #expect(store.setCookie("s=evil", for: insecure, at: t0) == .failure(.overlaysSecureCookie))
        #expect(store.setCookie("s=evil; Path=/x", for: insecure, at: t0) == .failure(.overlaysSecureCookie))
        #expect(store.setCookie("s=x; Max-Age=0; Domain=example.com", for: insecure, at: t0) == .failure(.overlaysSecureCookie))
        #expect(store.cookieHeader(for: Self.site, at: t0) == "s=secret")
        // Another name is fine, and so is the same name from https.
        #expect((try? store.setCookie("t=1", for: insecure, at: t0).get()) != nil)
        #expect((try? store.setCookie("s=new; Secure", for: Self.site, at: t0).get()) != nil)
    }

    @Test("HttpOnly and SameSite cookies are sent like any other (a client has no site context)")
    func flagsDoNotFilter() {
        let store = CookieStore()
        store.setCookie("h=1; HttpOnly", for: Self.site, at: t0)
        store.setCookie("s=1; SameSite=Strict", for: Self.site, at: t0)
        store.setCookie("n=1; SameSite=None; Secure", for: Self.site, at: t0)
        #expect(store.cookieHeader(for: Self.site, at: t0) == "h=1; s=1; n=1")
        #expect(store.allCookies.map(\.sameSite) == [.unspecified, .strict, .none])
    }

    @Test("setCookies takes every Set-Cookie field, each on its own (commas in Expires included)")
    func everyField() {
        let store = CookieStore()
        let results = store.setCookies(
            from: headers([
                ("Set-Cookie", "a=1; Expires=Wed, 15 Nov 2023 00:00:00 GMT"), ("Content-Type", "text/plain"),
                ("set-cookie", "b=2, c=3"), ("SET-COOKIE", "=nameless"),
            ]),
            for: Self.site, at: t0)
        #expect(results.count == 3)
        #expect(results.last == .failure(.emptyName))
        #expect(store.cookieHeader(for: Self.site, at: t0) == "a=1; b=2, c=3")
        #expect(store.setCookies(from: headers([("Set-Cookie", "a=1")]), for: testURL("ftp://x.example/"), at: t0)
            == [.failure(.unsupportedURL)])
    }

    // MARK: Expiry

    @Test("a cookie is sent until its expiry time, then removed")
    func expiry() {
        let store = CookieStore()
        store.setCookie("a=1; Max-Age=60", for: Self.site, at: t0)
        store.setCookie("session=1", for: Self.site, at: t0)
        #expect(store.cookieHeader(for: Self.site, at: Self.at(59)) == "a=1; session=1")
        #expect(store.cookieHeader(for: Self.site, at: Self.at(60)) == "session=1")
        #expect(store.count == 1)
        #expect(store.cookieHeader(for: Self.site, at: .distantFuture) == "session=1")
    }

    @Test("removeExpiredCookies and cookies(forDomain:) judge at the time given")
    func expiryHelpers() {
        let store = CookieStore()
        store.setCookie("a=1; Max-Age=60", for: Self.site, at: t0)
        store.setCookie("b=1; Max-Age=120", for: Self.site, at: t0)
        #expect(store.cookies(forDomain: "WWW.example.com", at: Self.at(90)).map(\.name) == ["b"])
        #expect(store.count == 2)
        #expect(store.removeExpiredCookies(at: Self.at(90)) == 1)
        #expect(store.allCookies.map(\.name) == ["b"])
    }

    // MARK: Last access and eviction

    @Test("sending a cookie updates its last access time; cookies(for:) does not")
    func lastAccess() throws {
        let store = CookieStore()
        store.setCookie("a=1", for: Self.site, at: t0)
        #expect(store.cookies(for: Self.site, at: Self.at(5)).first?.lastAccess == t0)
        #expect(store.allCookies.first?.lastAccess == t0)
        _ = store.cookieHeader(for: Self.site, at: Self.at(7))
        #expect(store.allCookies.first?.lastAccess == Self.at(7))
    }

    @Test("past the per-domain limit, the cookie with the oldest last access goes")
    func perDomainEviction() {
        let store = CookieStore(maximumCookiesPerDomain: 3)
        store.setCookie("c1=1; Path=/one", for: Self.site, at: Self.at(1))
        store.setCookie("c2=1; Path=/two", for: Self.site, at: Self.at(2))
        store.setCookie("c3=1; Path=/two", for: Self.site, at: Self.at(3))
        // c1 is sent, so c2 is now the least recently used.
        #expect(store.cookieHeader(for: testURL("https://www.example.com/one"), at: Self.at(4)) == "c1=1")
        store.setCookie("c4=1; Path=/two", for: Self.site, at: Self.at(5))
        #expect(store.count == 3)
        #expect(Set(store.allCookies.map(\.name)) == ["c1", "c3", "c4"])
    }

    @Test("the per-domain limit counts a registrable domain and its subdomains together")
    func perRegistrableDomain() {
        let store = CookieStore(maximumCookiesPerDomain: 2)
        store.setCookie("a=1", for: testURL("https://a.example.co.uk/"), at: Self.at(1))
        store.setCookie("b=1", for: testURL("https://b.example.co.uk/"), at: Self.at(2))
        store.setCookie("o=1", for: testURL("https://other.co.uk/"), at: Self.at(3))
        store.setCookie("d=1; Domain=example.co.uk", for: testURL("https://c.example.co.uk/"), at: Self.at(4))
        #expect(Set(store.allCookies.map(\.name)) == ["b", "o", "d"])
    }

    @Test("past the total limit, the least recently used cookie of any domain goes")
    func totalEviction() {
        let store = CookieStore(maximumCookiesPerDomain: 10, maximumCookies: 3)
        store.setCookie("a=1", for: testURL("https://a.example/"), at: Self.at(1))
        store.setCookie("b=1", for: testURL("https://b.example/"), at: Self.at(2))
        store.setCookie("c=1", for: testURL("https://c.example/"), at: Self.at(3))
        _ = store.cookieHeader(for: testURL("https://a.example/"), at: Self.at(4))
        store.setCookie("d=1", for: testURL("https://d.example/"), at: Self.at(5))
        #expect(Set(store.allCookies.map(\.name)) == ["a", "c", "d"])
        #expect(store.maximumCookies == 3)
        #expect(store.maximumCookiesPerDomain == 10)
    }

    @Test("expired cookies are evicted before any live one")
    func expiredFirst() {
        let store = CookieStore(maximumCookiesPerDomain: 2)
        store.setCookie("old=1", for: Self.site, at: Self.at(1))
        store.setCookie("shortlived=1; Max-Age=5", for: Self.site, at: Self.at(2))
        store.setCookie("new=1", for: Self.site, at: Self.at(10))
        #expect(Set(store.allCookies.map(\.name)) == ["old", "new"])
    }

    @Test("the cookie being stored is never the one evicted, even with an old last access")
    func newcomerStays() {
        let store = CookieStore(maximumCookiesPerDomain: 1)
        store.setCookie("a=1", for: Self.site, at: Self.at(10))
        store.set(HTTPCookie(name: "b", value: "1", domain: "www.example.com", creation: t0), at: Self.at(20))
        #expect(store.allCookies.map(\.name) == ["b"])
    }

    @Test("the default limits are 50 a domain and 3000 in all")
    func defaults() {
        let store = CookieStore()
        #expect(store.maximumCookiesPerDomain == 50)
        #expect(store.maximumCookies == 3000)
        for index in 0..<60 { store.setCookie("c\(index)=1", for: Self.site, at: Self.at(TimeInterval(index))) }
        #expect(store.count == 50)
        #expect(store.allCookies.first?.name == "c10")
        #expect(CookieStore(maximumCookiesPerDomain: 0, maximumCookies: -1).maximumCookies == 1)
    }

    // MARK: Managing

    @Test("set, delete, deleteAll, cookies(forDomain:)")
    func managing() {
        let store = CookieStore()
        store.set(HTTPCookie(name: "a", value: "1", domain: ".Example.COM", hostOnly: false, creation: t0))
        store.set(HTTPCookie(name: "b", value: "1", domain: "www.example.com", path: "/x", creation: t0))
        #expect(store.cookies(forDomain: "example.com", at: t0).map(\.name) == ["a"])
        #expect(store.cookies(forDomain: ".example.com", at: t0).map(\.name) == ["a"])
        #expect(store.cookieHeader(for: testURL("http://www.example.com/x/y"), at: t0) == "b=1; a=1")
        #expect(!store.delete(name: "b", domain: "www.example.com", path: "/"))
        #expect(store.delete(name: "b", domain: "WWW.example.com", path: "/x"))
        #expect(store.allCookies.map(\.name) == ["a"])
        store.deleteAll()
        #expect(store.allCookies.isEmpty)
        #expect(store.count == 0)
        #expect(store.cookieHeader(for: Self.site, at: t0) == nil)
    }

    @Test("HTTPCookie canonicalizes its domain, and survives Codable")
    func cookieValue() throws {
        var cookie = HTTPCookie(
            name: "a", value: "\"v\"", domain: ".EXAMPLE.com", hostOnly: false, path: "/p", expires: Self.at(60),
            creation: t0, secure: true, httpOnly: true, sameSite: .lax)
        #expect(cookie.domain == "example.com")
        #expect(cookie.lastAccess == t0)
        cookie.domain = ".Other.Example"
        #expect(cookie.domain == "other.example")
        let decoded = try JSONDecoder().decode(HTTPCookie.self, from: JSONEncoder().encode(cookie))
        #expect(decoded == cookie)
        let session = HTTPCookie(name: "s", value: "", domain: "h", creation: t0)
        #expect(try JSONDecoder().decode(HTTPCookie.self, from: JSONEncoder().encode(session)) == session)
        #expect(session.isSessionCookie)
        #expect(!cookie.isExpired(at: Self.at(59)))
        #expect(cookie.isExpired(at: Self.at(60)))
    }

    @Test("many threads at once")
    func concurrency() async {
        let store = CookieStore()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        store.setCookie("w\(worker)i\(index % 20)=\(index)", for: Self.site, at: t0)
                        _ = store.cookieHeader(for: Self.site, at: t0)
                    }
                }
            }
        }
        #expect(store.count == 50)
    }
}
