import Foundation
import SluiceTesting
import Testing

/// Every matcher against requests it must and must not match, and the message for a request no stub
/// matches. No session, no socket.
@Suite("StubMatcher: which requests a stub answers")
struct StubMatcherTests {
    static func recorded(_ url: String, headers: HTTPHeaders = [:], body: String = "") -> RecordedRequest {
        recorded(.get, url, headers: headers, body: body)
    }

    static func recorded(_ method: HTTPMethod, _ url: String, headers: HTTPHeaders = [:], body: String = "") -> RecordedRequest {
        var request = HTTPRequest(url: URL(string: url)!, method: method)
        request.headers = headers
        return RecordedRequest(request: request, body: Data(body.utf8))
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let matcher: StubMatcher
        let matching: [RecordedRequest]
        let notMatching: [RecordedRequest]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "any", matcher: .any, matching: [recorded("https://a.test/"), recorded(.delete, "http://b.test/x")], notMatching: []),
        Row(name: "method", matcher: .method(.post),
            matching: [recorded(.post, "https://a.test/")], notMatching: [recorded(.get, "https://a.test/"), recorded(.put, "https://a.test/")]),
        Row(name: "exact URL, fragment ignored, query counts", matcher: .url("https://a.test/items?page=2"),
            matching: [recorded("https://a.test/items?page=2"), recorded("https://a.test/items?page=2#top")],
            notMatching: [recorded("https://a.test/items"), recorded("https://a.test/items?page=3"), recorded("https://a.test/items/?page=2"),
                          recorded("http://a.test/items?page=2")]),
        Row(name: "URL prefix, byte for byte", matcher: .urlPrefix("https://a.test/v1/"),
            matching: [recorded("https://a.test/v1/items"), recorded("https://a.test/v1/")],
            notMatching: [recorded("https://a.test/v2/items"), recorded("https://a.test/v1"), recorded("https://A.test/v1/items")]),
        Row(name: "URL pattern, whole URL", matcher: .urlMatching(#"https://a\.test/items/\d+"#),
            matching: [recorded("https://a.test/items/42"), recorded("https://a.test/items/7#x")],
            notMatching: [recorded("https://a.test/items/abc"), recorded("https://a.test/items/42/more"), recorded("https://b.test/items/1")]),
        Row(name: "an invalid pattern matches nothing", matcher: .urlMatching("(unclosed"),
            matching: [], notMatching: [recorded("https://a.test/(unclosed")]),
        Row(name: "path", matcher: .path("/a b/c"),
            matching: [recorded("https://a.test/a%20b/c"), recorded("http://b.test/a%20b/c?q=1")], notMatching: [recorded("https://a.test/a%20b")]),
        Row(name: "query subset, decoded, any order", matcher: .query(["q": "swift linux", "page": "2"]),
            matching: [recorded("https://a.test/s?page=2&q=swift%20linux"), recorded("https://a.test/s?x=1&q=swift%20linux&page=2"),
                       recorded("https://a.test/s?page=1&page=2&q=swift%20linux")],
            notMatching: [recorded("https://a.test/s?q=swift%20linux"), recorded("https://a.test/s?page=2&q=swift"), recorded("https://a.test/s")]),
        Row(name: "header value, name in any case", matcher: .header("x-api-key", "k1"),
            matching: [recorded("https://a.test/", headers: ["X-API-Key": "k1"]), recorded("https://a.test/", headers: ["X-Api-Key": "k0", "x-api-key": "k1"])],
            notMatching: [recorded("https://a.test/", headers: ["X-API-Key": "K1"]), recorded("https://a.test/")]),
        Row(name: "header present", matcher: .header("Authorization"),
            matching: [recorded("https://a.test/", headers: ["authorization": "Bearer t"])], notMatching: [recorded("https://a.test/")]),
        Row(name: "body bytes", matcher: .body("a=1&b=2"),
            matching: [recorded(.post, "https://a.test/", body: "a=1&b=2")],
            notMatching: [recorded(.post, "https://a.test/", body: "b=2&a=1"), recorded(.post, "https://a.test/")]),
        Row(name: "JSON body, key order and spacing free", matcher: .jsonBody(#"{"a": 1, "b": [true, null]}"#),
            matching: [recorded(.post, "https://a.test/", body: #"{"b":[true,null],"a":1}"#)],
            notMatching: [recorded(.post, "https://a.test/", body: #"{"a":1,"b":[false,null]}"#), recorded(.post, "https://a.test/", body: "not json")]),
        Row(name: "body predicate", matcher: .body("body is longer than 3 bytes", where: { $0.count > 3 }),
            matching: [recorded(.post, "https://a.test/", body: "abcd")], notMatching: [recorded(.post, "https://a.test/", body: "abc")]),
        Row(name: "closure", matcher: .matching("hop of a redirect") { $0.url.host == "cdn.test" },
            matching: [recorded("https://cdn.test/x")], notMatching: [recorded("https://a.test/x")]),
        Row(name: "method and URL", matcher: .post("https://a.test/items"),
            matching: [recorded(.post, "https://a.test/items")], notMatching: [recorded(.get, "https://a.test/items"), recorded(.post, "https://a.test/other")]),
        Row(name: "conditions joined", matcher: .get("https://a.test/items") && .header("Accept", "application/json") && .query([:]),
            matching: [recorded("https://a.test/items", headers: ["Accept": "application/json"])],
            notMatching: [recorded("https://a.test/items"), recorded(.head, "https://a.test/items", headers: ["Accept": "application/json"])]),
    ]

    @Test("matches what it must and nothing else", arguments: rows)
    func table(row: Row) {
        for request in row.matching { #expect(row.matcher.matches(request), "\(row.matcher) should match \(request)") }
        for request in row.notMatching { #expect(!row.matcher.matches(request), "\(row.matcher) should not match \(request)") }
    }

    @Test("descriptions read as conditions")
    func descriptions() {
        #expect(StubMatcher.any.description == "any request")
        #expect(StubMatcher.get("https://a.test/x").description == "method is GET and URL is https://a.test/x")
        #expect(StubMatcher.header("Accept").description == "has Accept")
        #expect(StubMatcher.urlMatching("(").description.contains("not a valid pattern"))
    }
}
