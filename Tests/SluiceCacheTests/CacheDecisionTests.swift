import Foundation
import SluiceCore
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

    // MARK: §4.2.1 Freshness lifetime, §4.2.2 heuristic

    @Test("freshness lifetime: max-age over Expires, Expires minus Date, invalid Expires stale, s-maxage ignored, heuristic 10% capped", arguments: [
        ("max-age wins over Expires", [("Cache-Control", "max-age=60"), ("Expires", date(3600))], 200, 60.0, false),
        ("Expires minus Date", [("Expires", date(120))], 200, 120.0, false),
        ("Expires in the past", [("Expires", date(-10))], 200, 0.0, false),
        ("invalid Expires: already expired", [("Expires", "0")], 200, 0.0, false),
        ("s-maxage is for shared caches", [("Cache-Control", "s-maxage=60")], 200, 0.0, false),
        ("heuristic: a tenth since Last-Modified", [("Last-Modified", date(-1000))], 200, 100.0, true),
        ("heuristic capped at a week", [("Last-Modified", date(-100 * 86_400 * 7))], 200, 7.0 * 86_400, true),
        ("no heuristic for a 302", [("Last-Modified", date(-1000))], 302, 0.0, false),
        ("heuristic for a public 302", [("Last-Modified", date(-1000)), ("Cache-Control", "public")], 302, 100.0, true),
        ("nothing: 0", [], 200, 0.0, false),
    ] as [(String, [(String, String)], Int, Double, Bool)])
    func lifetime(name: String, fields: [(String, String)], status: Int, seconds: Double, heuristic: Bool) {
        let stored = Self.stored(fields, status: status)
        let freshness = Freshness(of: stored, now: Self.t0)
        #expect(freshness.lifetime == seconds, "\(name)")
        #expect(freshness.isHeuristic == heuristic, "\(name)")
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

    // MARK: §3 Storing, §3.5 Authorization

    @Test("storable or not", arguments: [
        ("a 200 with max-age", .get, [], 200, [("Cache-Control", "max-age=60")], true),
        ("a 200 with nothing (heuristically cacheable)", .get, [], 200, [], true),
        ("a 302 with nothing", .get, [], 302, [], false),
        ("a 302 with max-age", .get, [], 302, [("Cache-Control", "max-age=60")], true),
        ("a 404 with nothing", .get, [], 404, [], true),
        ("a 500 with nothing", .get, [], 500, [], false),
        ("a 500 with Expires", .get, [], 500, [("Expires", date(60))], true),
        ("a private response (this cache is private)", .get, [], 302, [("Cache-Control", "private")], true),
        ("response no-store", .get, [], 200, [("Cache-Control", "max-age=60, no-store")], false),
        ("request no-store", .get, [("Cache-Control", "no-store")], 200, [("Cache-Control", "max-age=60")], false),
        ("POST", .post, [], 200, [("Cache-Control", "max-age=60")], false),
        ("HEAD", .head, [], 200, [("Cache-Control", "max-age=60")], false),
        ("206", .get, [], 206, [("Cache-Control", "max-age=60")], false),
        ("Vary: *", .get, [], 200, [("Vary", "Accept, *")], false),
        ("Authorization, plain max-age", .get, [("Authorization", "Bearer x")], 200, [("Cache-Control", "max-age=60")], false),
        ("Authorization, public", .get, [("Authorization", "Bearer x")], 200, [("Cache-Control", "public, max-age=60")], true),
        ("Authorization, must-revalidate", .get, [("Authorization", "Bearer x")], 200, [("Cache-Control", "must-revalidate")], true),
        ("Authorization, s-maxage", .get, [("Authorization", "Bearer x")], 200, [("Cache-Control", "s-maxage=5")], true),
    ] as [(String, HTTPMethod, [(String, String)], Int, [(String, String)], Bool)])
    func storability(name: String, method: HTTPMethod, request: [(String, String)], status: Int, response: [(String, String)], storable: Bool) {
        let judged = Storability.judge(
            method: method, requestHeaders: Self.headers(request), statusCode: status, responseHeaders: Self.headers(response))
        #expect((judged == .storable) == storable, "\(name): \(judged)")
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

    // MARK: §4 Serving, §5.2.1 request directives, NSURLRequest's policies

    enum Expected: Equatable { case serve, serveStale, serveStaleAndRevalidate, revalidate, fetch, pass, passInvalidating, unsatisfiable }

    static func classify(_ plan: CachePlan) -> Expected {
        switch plan {
        case .serve(_, let stale): stale ? .serveStale : .serve
        case .revalidate: .revalidate
        case .serveStaleAndRevalidate: .serveStaleAndRevalidate
        case .fetch: .fetch
        case .pass(let invalidates): invalidates ? .passInvalidating : .pass
        case .unsatisfiable: .unsatisfiable
        }
    }

    @Test("what a request does with what is stored", arguments: [
        // (name, stored fields, age in seconds, request fields, method, policy, expected)
        ("fresh", [("Cache-Control", "max-age=60")], 10, [], .get, .useProtocolCachePolicy, .serve),
        ("stale with an ETag", [("Cache-Control", "max-age=60"), ("ETag", "\"a\"")], 61, [], .get, .useProtocolCachePolicy, .revalidate),
        ("stale with Last-Modified", [("Cache-Control", "max-age=60"), ("Last-Modified", date(-100))], 61, [], .get, .useProtocolCachePolicy, .revalidate),
        ("stale without validators", [("Cache-Control", "max-age=60")], 61, [], .get, .useProtocolCachePolicy, .fetch),
        ("response no-cache: always validated", [("Cache-Control", "no-cache, max-age=60"), ("ETag", "\"a\"")], 1, [], .get, .useProtocolCachePolicy, .revalidate),
        ("response no-cache with fields: whole response served", [("Cache-Control", "no-cache=\"Set-Cookie\", max-age=60")], 1, [], .get, .useProtocolCachePolicy, .serve),
        ("request no-cache", [("Cache-Control", "max-age=60"), ("ETag", "\"a\"")], 1, [("Cache-Control", "no-cache")], .get, .useProtocolCachePolicy, .revalidate),
        ("request Pragma: no-cache", [("Cache-Control", "max-age=60"), ("ETag", "\"a\"")], 1, [("Pragma", "no-cache")], .get, .useProtocolCachePolicy, .revalidate),
        ("request max-age below the age", [("Cache-Control", "max-age=60"), ("ETag", "\"a\"")], 30, [("Cache-Control", "max-age=10")], .get, .useProtocolCachePolicy, .revalidate),
        ("request max-age above the age", [("Cache-Control", "max-age=60")], 5, [("Cache-Control", "max-age=10")], .get, .useProtocolCachePolicy, .serve),
        ("request min-fresh not met", [("Cache-Control", "max-age=60")], 50, [("Cache-Control", "min-fresh=20")], .get, .useProtocolCachePolicy, .fetch),
        ("request min-fresh met", [("Cache-Control", "max-age=60")], 30, [("Cache-Control", "min-fresh=20")], .get, .useProtocolCachePolicy, .serve),
        ("max-stale without a value", [("Cache-Control", "max-age=60")], 5000, [("Cache-Control", "max-stale")], .get, .useProtocolCachePolicy, .serveStale),
        ("max-stale within", [("Cache-Control", "max-age=60")], 70, [("Cache-Control", "max-stale=20")], .get, .useProtocolCachePolicy, .serveStale),
        ("max-stale beyond", [("Cache-Control", "max-age=60")], 90, [("Cache-Control", "max-stale=20")], .get, .useProtocolCachePolicy, .fetch),
        ("max-stale against must-revalidate", [("Cache-Control", "max-age=60, must-revalidate")], 70, [("Cache-Control", "max-stale")], .get, .useProtocolCachePolicy, .fetch),
        ("only-if-cached, fresh", [("Cache-Control", "max-age=60")], 1, [("Cache-Control", "only-if-cached")], .get, .useProtocolCachePolicy, .serve),
        ("only-if-cached, stale", [("Cache-Control", "max-age=60")], 61, [("Cache-Control", "only-if-cached")], .get, .useProtocolCachePolicy, .unsatisfiable),
        ("HEAD from a stored GET", [("Cache-Control", "max-age=60")], 1, [], .head, .useProtocolCachePolicy, .serve),
        ("POST invalidates", [("Cache-Control", "max-age=60")], 1, [], .post, .useProtocolCachePolicy, .passInvalidating),
        ("DELETE invalidates", [("Cache-Control", "max-age=60")], 1, [], .delete, .useProtocolCachePolicy, .passInvalidating),
        ("OPTIONS is safe", [("Cache-Control", "max-age=60")], 1, [], .options, .useProtocolCachePolicy, .pass),
        ("the caller's own conditional request", [("Cache-Control", "max-age=60")], 1, [("If-None-Match", "\"x\"")], .get, .useProtocolCachePolicy, .pass),
        ("a range request", [("Cache-Control", "max-age=60")], 1, [("Range", "bytes=0-1")], .get, .useProtocolCachePolicy, .pass),
        ("reloadIgnoringCache", [("Cache-Control", "max-age=60")], 1, [], .get, .reloadIgnoringCache, .fetch),
        ("returnCacheDataElseLoad, stale", [("Cache-Control", "max-age=60")], 6000, [], .get, .returnCacheDataElseLoad, .serveStale),
        ("stale-while-revalidate, within", [("Cache-Control", "max-age=60, stale-while-revalidate=30")], 80, [], .get, .useProtocolCachePolicy, .serveStaleAndRevalidate),
        ("stale-while-revalidate, beyond", [("Cache-Control", "max-age=60, stale-while-revalidate=30"), ("ETag", "\"a\"")], 100, [], .get, .useProtocolCachePolicy, .revalidate),
        ("stale-while-revalidate against request no-cache", [("Cache-Control", "max-age=60, stale-while-revalidate=30"), ("ETag", "\"a\"")], 80, [("Cache-Control", "no-cache")], .get, .useProtocolCachePolicy, .revalidate),
        ("stale-while-revalidate against must-revalidate", [("Cache-Control", "max-age=60, stale-while-revalidate=30, must-revalidate")], 80, [], .get, .useProtocolCachePolicy, .fetch),
        ("returnCacheDataDontLoad, stale", [("Cache-Control", "max-age=60, must-revalidate")], 6000, [], .get, .returnCacheDataDontLoad, .serveStale),
    ] as [(String, [(String, String)], Double, [(String, String)], HTTPMethod, HTTPRequest.CachePolicy, Expected)])
    func plan(
        name: String, stored fields: [(String, String)], age: Double, request requestFields: [(String, String)], method: HTTPMethod,
        policy: HTTPRequest.CachePolicy, expected: Expected
    ) {
        let plan = CachePlan.make(
            for: Self.request(requestFields, method: method, policy: policy), variants: [Self.stored(fields)],
            now: Self.t0.addingTimeInterval(age))
        #expect(Self.classify(plan) == expected, "\(name): \(plan)")
    }

    @Test("nothing stored: fetch; or unsatisfiable where the network is forbidden", arguments: [
        ([] as [(String, String)], HTTPRequest.CachePolicy.useProtocolCachePolicy, Expected.fetch),
        ([("Cache-Control", "only-if-cached")], .useProtocolCachePolicy, .unsatisfiable),
        ([], .returnCacheDataDontLoad, .unsatisfiable),
        ([], .returnCacheDataElseLoad, .fetch),
    ])
    func nothingStored(request fields: [(String, String)], policy: HTTPRequest.CachePolicy, expected: Expected) {
        #expect(Self.classify(CachePlan.make(for: Self.request(fields, policy: policy), variants: [], now: Self.t0)) == expected)
    }

    @Test("of several variants, the newest that matches is chosen")
    func newestVariant() {
        var older = Self.stored([("Cache-Control", "max-age=600"), ("Vary", "X-Lang")], vary: [("X-Lang", "en")])
        older.responseDate = Self.t0.addingTimeInterval(-10)
        let newer = Self.stored([("Cache-Control", "max-age=600"), ("Vary", "X-Lang")], vary: [("X-Lang", "en")])
        let other = Self.stored([("Cache-Control", "max-age=600"), ("Vary", "X-Lang")], vary: [("X-Lang", "fr")])
        let plan = CachePlan.make(for: Self.request([("X-Lang", "en")]), variants: [older, other, newer], now: Self.t0)
        #expect(plan == .serve(newer, stale: false))
    }

    // MARK: §4.3 Validation

    @Test("the conditional request carries the stored validators")
    func conditional() {
        let stored = Self.stored([("ETag", "W/\"v1\""), ("Last-Modified", Self.date(-100))])
        let request = CachePlan.conditional(Self.request(), for: stored)
        #expect(request.headers.first("If-None-Match") == "W/\"v1\"")
        #expect(request.headers.first("If-Modified-Since") == Self.date(-100))
    }

    @Test("a 304 selects the stored response by its ETag (weak comparison) or Last-Modified", arguments: [
        ([("ETag", "\"v1\"")], [("ETag", "\"v1\"")], true),
        ([("ETag", "\"v1\"")], [("ETag", "W/\"v1\"")], true),
        ([("ETag", "\"v1\"")], [("ETag", "\"v2\"")], false),
        ([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], true),
        ([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], [("Last-Modified", "Mon, 07 Nov 1994 08:49:37 GMT")], false),
        ([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], [("ETag", "\"v1\"")], false),
        ([("ETag", "\"v1\"")], [], true),
    ] as [([(String, String)], [(String, String)], Bool)])
    func selection(stored: [(String, String)], notModified: [(String, String)], selects: Bool) {
        #expect(Revalidation.selects(Self.stored(stored), notModified: Self.headers(notModified)) == selects)
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

    // MARK: RFC 5861 stale-if-error

    @Test("stale-if-error: within the response's or the request's window, never past must-revalidate", arguments: [
        ([("Cache-Control", "max-age=60, stale-if-error=100")], [], 120.0, true),
        ([("Cache-Control", "max-age=60, stale-if-error=100")], [], 200.0, false),
        ([("Cache-Control", "max-age=60")], [("Cache-Control", "stale-if-error=100")], 120.0, true),
        ([("Cache-Control", "max-age=60")], [], 61.0, false),
        ([("Cache-Control", "max-age=60, stale-if-error=100, must-revalidate")], [], 61.0, false),
    ] as [([(String, String)], [(String, String)], Double, Bool)])
    func staleIfError(stored: [(String, String)], request: [(String, String)], age: Double, allowed: Bool) {
        #expect(CachePlan.mayServeStaleOnError(Self.stored(stored), request: Self.request(request), now: Self.t0.addingTimeInterval(age)) == allowed)
    }
}
