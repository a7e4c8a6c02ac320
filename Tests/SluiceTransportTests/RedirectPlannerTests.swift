import Foundation
import SluiceCore
@testable import SluiceTransport
import Testing

/// The redirect planner with no socket: which responses are followed, the method and body after each
/// status, origins, the credentials a redirect drops, the hop limit and unusable locations.
@Suite("Redirect planner")
struct RedirectPlannerTests {
    private static func request(_ url: String, method: HTTPMethod = .get, body: Bool = false) -> HTTPRequest {
        var request = HTTPRequest(url: URL(string: url)!, method: method)
        try! request.headers.set(name: "Authorization", value: "Bearer secret")
        try! request.headers.set(name: "Cookie", value: "a=b")
        try! request.headers.set(name: "Proxy-Authorization", value: "Basic eA==")
        try! request.headers.set(name: "X-Custom", value: "kept")
        if body {
            request.body = .bytes(Data("payload".utf8))
            try! request.headers.set(name: "Content-Type", value: "text/plain")
            try! request.headers.set(name: "Content-Encoding", value: "gzip")
        }
        return request
    }

    private static func response(_ status: Int, location: String?) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: location.flatMap { try? HTTPHeaders(validating: ["Location": $0]) } ?? HTTPHeaders())
    }

    @Test("followed statuses need a Location and a policy that follows", arguments: [
        (301, true, true), (302, true, true), (303, true, true), (307, true, true), (308, true, true),
        (300, true, false), (304, true, false), (305, true, false), (306, true, false), (200, true, false), (401, true, false),
        (301, false, false), (308, false, false),
    ])
    func follows(status: Int, hasLocation: Bool, expected: Bool) {
        #expect(RedirectPlanner.follows(statusCode: status, hasLocation: hasLocation, policy: .follow()) == expected)
        #expect(RedirectPlanner.follows(statusCode: status, hasLocation: hasLocation, policy: .decide { next, _ in next }) == expected)
        #expect(!RedirectPlanner.follows(statusCode: status, hasLocation: hasLocation, policy: .refuse))
    }

    @Test("the policy's maximum")
    func maximum() {
        #expect(RedirectPlanner.maximumRedirects(.follow()) == 16)
        #expect(RedirectPlanner.maximumRedirects(.follow(maximum: 3)) == 3)
        #expect(RedirectPlanner.maximumRedirects(.decide(maximum: 5) { next, _ in next }) == 5)
        #expect(RedirectPlanner.maximumRedirects(.refuse) == nil)
    }

    @Test("method and body by status: 303 (not after HEAD), and 301/302 after POST, become a bodiless GET", arguments: [
        (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false), (307, "POST", "POST", true),
        (308, "POST", "POST", true), (301, "PUT", "PUT", true), (302, "PUT", "PUT", true), (303, "PUT", "GET", false),
        (303, "DELETE", "GET", false), (303, "HEAD", "HEAD", false), (301, "GET", "GET", false), (307, "PATCH", "PATCH", true),
    ])
    func methodByStatus(status: Int, method: String, expectedMethod: String, keepsBody: Bool) throws {
        let hasBody = method != "GET" && method != "HEAD"
        let plan = try RedirectPlanner.plan(
            following: Self.request("http://a.example/x", method: HTTPMethod(rawValue: method), body: hasBody),
            response: Self.response(status, location: "/y"), redirectCount: 0, maximum: 16)
        #expect(plan.request.method.rawValue == expectedMethod)
        #expect(plan.request.body.isPresent == keepsBody)
        #expect(plan.request.headers.contains("Content-Type") == keepsBody)
        #expect(plan.request.headers.contains("Content-Encoding") == keepsBody)
        #expect(plan.request.url.absoluteString == "http://a.example/y")
    }

    @Test("locations resolve against the current URL", arguments: [
        ("/y", "http://a.example/y"), ("y", "http://a.example/dir/y"), ("../z", "http://a.example/z"),
        ("?q=1", "http://a.example/dir/x?q=1"), ("//b.example/p", "http://b.example/p"), ("https://c.example:8443/", "https://c.example:8443/"),
    ])
    func locations(location: String, expected: String) throws {
        let plan = try RedirectPlanner.plan(
            following: Self.request("http://a.example/dir/x"), response: Self.response(302, location: location), redirectCount: 0, maximum: 16)
        #expect(plan.request.url.absoluteString == expected)
    }

    @Test("credentials are dropped when the redirect leaves the origin, kept when it does not", arguments: [
        ("http://a.example/other", false), ("http://A.EXAMPLE:80/other", false), ("https://a.example/x", true),
        ("http://a.example:8080/x", true), ("http://b.example/x", true), ("http://sub.a.example/x", true),
    ])
    func origin(location: String, leaves: Bool) throws {
        let plan = try RedirectPlanner.plan(
            following: Self.request("http://a.example/x"), response: Self.response(307, location: location), redirectCount: 0, maximum: 16)
        #expect(plan.leavesOrigin == leaves)
        for name in ["Authorization", "Cookie", "Proxy-Authorization"] {
            #expect(plan.request.headers.contains(name) == !leaves, "\(name)")
        }
        #expect(plan.request.headers["X-Custom"] == "kept")
    }

    @Test("same origin: scheme and host without case, ports with the scheme's default", arguments: [
        ("http://a.example/", "http://a.example:80/x", true), ("https://a.example/", "https://a.example:443/", true),
        ("https://a.example/", "http://a.example/", false), ("http://a.example/", "http://a.example:81/", false),
        ("HTTP://A.example/", "http://a.EXAMPLE/", true), ("http://[::1]:8080/", "http://[::1]:8080/y", true),
        ("http://127.0.0.1/", "http://localhost/", false),
    ])
    func sameOrigin(a: String, b: String, same: Bool) {
        #expect(RedirectPlanner.sameOrigin(URL(string: a)!, URL(string: b)!) == same)
        #expect(RedirectPlanner.sameOrigin(URL(string: b)!, URL(string: a)!) == same)
    }

    @Test("the hop limit: the redirect after the maximum is tooManyRedirects", arguments: [(0, 1, true), (15, 16, true), (16, 16, false), (3, 0, false)])
    func hopLimit(count: Int, maximum: Int, allowed: Bool) {
        let result = Result { () throws(SluiceError) in
            try RedirectPlanner.plan(following: Self.request("http://a.example/x"), response: Self.response(302, location: "/x"),
                                     redirectCount: count, maximum: maximum)
        }
        switch result {
        case .success: #expect(allowed)
        case .failure(let error):
            #expect(!allowed)
            #expect(error.code == .tooManyRedirects)
            #expect(error.response?.statusCode == 302)
        }
    }

    @Test("unusable locations are redirectRefused", arguments: [
        "ftp://a.example/file", "file:///etc/passwd", "javascript:alert(1)", "gopher://a.example/", "data:text/plain,x",
    ])
    func unusable(location: String) {
        let error = #expect(throws: SluiceError.self) {
            try RedirectPlanner.plan(following: Self.request("http://a.example/x"), response: Self.response(301, location: location),
                                     redirectCount: 0, maximum: 16)
        }
        #expect(error?.code == .redirectRefused)
    }

    @Test("a redirect without a Location is redirectRefused")
    func missingLocation() {
        let error = #expect(throws: SluiceError.self) {
            try RedirectPlanner.plan(following: Self.request("http://a.example/x"), response: Self.response(301, location: nil),
                                     redirectCount: 0, maximum: 16)
        }
        #expect(error?.code == .redirectRefused)
    }
}
