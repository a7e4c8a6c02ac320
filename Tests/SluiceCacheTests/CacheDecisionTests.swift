import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceCache

/// RFC 9111's rules, section by section, as tables: no store, no network, the time given.
@Suite("Cache decisions (RFC 9111)")
struct CacheDecisionTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static func date(_ offset: TimeInterval) -> String { HTTPDate.format(t0.addingTimeInterval(offset)) }

    static func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
        HTTPHeaders(pairs.map { try! HTTPHeader(name: $0.0, value: $0.1) })
    }

    /// A response stored at t0 (requested and received at t0, `Date: t0` unless given).
    static func stored(_ pairs: [(String, String)], status: Int = 200, vary request: [(String, String)] = []) -> CachedResponse {
        var fields = pairs
        if !fields.contains(where: { $0.0 == "Date" }) { fields.append(("Date", date(0))) }
        let responseHeaders = headers(fields)
        return CachedResponse(
            url: URL(string: "http://a.example/r")!, statusCode: status, headers: responseHeaders,
            varyingRequestHeaders: CachedResponse.varyingValues(of: headers(request), for: responseHeaders),
            requestDate: t0, responseDate: t0)
    }

    static func request(_ pairs: [(String, String)] = [], method: HTTPMethod = .get, policy: HTTPRequest.CachePolicy = .useProtocolCachePolicy)
        -> HTTPRequest
    {
        var request = HTTPRequest(url: "http://a.example/r", method: method)
        request.headers = headers(pairs)
        request.cachePolicy = policy
        return request
    }

    // MARK: §5.2 Cache-Control parsing

    @Test("Cache-Control directives: case, spaces, quotes, values, duplicates, commas", arguments: [
        ("max-age=60", "max-age", "60"),
        ("MAX-AGE=60", "max-age", "60"),
        (" public , max-age = 60 ", "max-age", "60"),
        ("max-age=\"60\"", "max-age", "60"),
        ("private=\"Set-Cookie, X-A\", max-age=5", "private", "Set-Cookie, X-A"),
        ("private=\"Set-Cookie, X-A\", max-age=5", "max-age", "5"),
        ("max-age=5, max-age=10", "max-age", "5"),
        ("no-cache", "no-cache", ""),
        (",,no-store,,", "no-store", ""),
        ("ext=\"a\\\"b\"", "ext", "a\"b"),
    ])
    func parsing(field: String, name: String, value: String) {
        let control = CacheControl(parsing: field)
        #expect(control.has(name))
        #expect((control.directives[name] ?? nil) ?? "" == value)
    }

    @Test("delta-seconds: digits only, capped at 2^31", arguments: [
        ("max-age=0", 0), ("max-age=3600", 3600), ("max-age=99999999999999", 1 << 31), ("max-age=-1", nil),
        ("max-age=1.5", nil), ("max-age=", nil), ("max-age", nil), ("max-age=abc", nil),
    ] as [(String, Int?)])
    func deltaSeconds(field: String, expected: Int?) {
        #expect(CacheControl(parsing: field).seconds("max-age") == expected)
    }

    @Test("Pragma: no-cache counts as no-cache only without Cache-Control")
    func pragma() {
        #expect(CacheControl(Self.headers([("Pragma", "no-cache")]), pragmaCounts: true).has("no-cache"))
        #expect(!CacheControl(Self.headers([("Pragma", "no-cache"), ("Cache-Control", "max-age=5")]), pragmaCounts: true).has("no-cache"))
        #expect(!CacheControl(Self.headers([("Pragma", "no-cache")])).has("no-cache"))
    }

    // MARK: §4.2.3 Age

    @Test("current age: Age, the response delay, the apparent age and the time resident")
    func age() {
        let base = Self.headers([("Date", Self.date(-30)), ("Age", "10")])
        // Requested at t0-5, received at t0: delay 5; apparent age 30; corrected age value 15; initial 30.
        #expect(Freshness.currentAge(headers: base, requestDate: Self.t0.addingTimeInterval(-5), responseDate: Self.t0, now: Self.t0.addingTimeInterval(100)) == 130)
        // A Date in the future gives no negative apparent age.
        let future = Self.headers([("Date", Self.date(60))])
        #expect(Freshness.currentAge(headers: future, requestDate: Self.t0, responseDate: Self.t0, now: Self.t0) == 0)
        // An Age larger than the apparent age wins.
        let aged = Self.headers([("Date", Self.date(0)), ("Age", "500")])
        #expect(Freshness.currentAge(headers: aged, requestDate: Self.t0, responseDate: Self.t0, now: Self.t0.addingTimeInterval(1)) == 501)
        // An invalid Age counts as none.
        let invalid = Self.headers([("Date", Self.date(0)), ("Age", "-3")])
        #expect(Freshness.currentAge(headers: invalid, requestDate: Self.t0, responseDate: Self.t0, now: Self.t0) == 0)
    }

    // MARK: §4.1 Vary

    @Test("Vary: the stored request values must match; absent matches absent; * never matches")
    func vary() {
        let stored = Self.stored([("Vary", "Accept-Encoding, X-Lang")], vary: [("Accept-Encoding", "gzip,  br"), ("X-Lang", "en")])
        #expect(stored.matches(requestHeaders: Self.headers([("Accept-Encoding", "gzip, br"), ("X-Lang", "en")])))
        #expect(!stored.matches(requestHeaders: Self.headers([("Accept-Encoding", "gzip"), ("X-Lang", "en")])))
        #expect(!stored.matches(requestHeaders: Self.headers([("Accept-Encoding", "gzip, br")])))
        let absent = Self.stored([("Vary", "X-Lang")])
        #expect(absent.matches(requestHeaders: Self.headers([])))
        #expect(!absent.matches(requestHeaders: Self.headers([("X-Lang", "en")])))
        #expect(!Self.stored([("Vary", "*")]).matches(requestHeaders: Self.headers([])))
        #expect(Self.stored([("Vary", "x-lang")], vary: [("X-LANG", "fr")]).matches(requestHeaders: Self.headers([("x-lang", "fr")])))
    }

    @Test("of several variants, the newest that matches is chosen")
    func newestVariant() {
        var older = Self.stored([("Cache-Control", "max-age=600"), ("Vary", "X-Lang")], vary: [("X-Lang", "en")])
        older.responseDate = Self.t0.addingTimeInterval(-10)
        let newer = Self.stored([("Cache-Control", "max-age=600"), ("Vary", "X-Lang")], vary: [("X-Lang", "en")])
        let other = Self.stored([("Cache-Control", "max-age=600"), ("Vary", "X-Lang")], vary: [("X-Lang", "fr")])
        let plan = CachePlan.make(for: Self.request([("X-Lang", "en")]), variants: [older, other, newer], now: Self.t0)
        guard case .serve(let served, stale: false, _) = plan else {
            Issue.record("\(plan)")
            return
        }
        #expect(served == newer)
    }

    // MARK: §4.3 Validation

    @Test("the conditional request carries the stored validators")
    func conditional() {
        let stored = Self.stored([("ETag", "W/\"v1\""), ("Last-Modified", Self.date(-100))])
        let request = CachePlan.conditional(Self.request(), for: stored)
        #expect(request.headers.first("If-None-Match") == "W/\"v1\"")
        #expect(request.headers.first("If-Modified-Since") == Self.date(-100))
    }

    @Test("a 304 replaces the stored fields it carries, except those that describe the stored body")
    func update() {
        let stored = Self.stored([
            ("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("Content-Length", "100"), ("Content-Encoding", "gzip"),
            ("X-A", "1"), ("X-A", "2"), ("X-Kept", "k"),
        ])
        let later = Self.t0.addingTimeInterval(500)
        let updated = Revalidation.updated(
            stored,
            with: Self.headers([("Cache-Control", "max-age=120"), ("X-A", "3"), ("Content-Length", "0"), ("Content-Encoding", "br")]),
            requestDate: later, responseDate: later)
        #expect(updated.headers.values(for: "Cache-Control") == ["max-age=120"])
        #expect(updated.headers.values(for: "X-A") == ["3"])
        #expect(updated.headers.first("X-Kept") == "k")
        #expect(updated.headers.first("Content-Length") == "100")
        #expect(updated.headers.first("Content-Encoding") == "gzip")
        #expect(updated.responseDate == later)
        #expect(updated.id == stored.id)
    }
}
