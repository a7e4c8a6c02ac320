import Foundation
import HTTPTypes
import SluiceHTTPTypes
import Testing

/// SluiceCore's heads and swift-http-types' heads, both ways, without a socket: random heads round-trip
/// unchanged (methods beyond the standard ones, repeated fields, field order and spelling, escapes in the
/// path and query), and what one side cannot hold is a typed error.
@Suite("swift-http-types conversions")
struct HTTPTypesConversionTests {
    /// A seeded generator, so a failure names an input that can be made again.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PURGE", "M-SEARCH", "propfind", "X_CUSTOM.1"]
    static let names = ["Accept", "accept", "X-Trace", "x-REPEATED", "Set-Cookie", "Cache-Control", "X-Empty", "ETag", "X~Odd!"]
    static let values = ["", "a", "text/html, */*;q=0.8", "a=1; Path=/", "\"quoted\"", "tab\there", "ü non-ascii é", "%41 stays"]
    static let pathParts = ["/", "/a/b", "/%20x%2Fy", "/caf%C3%A9", "/a;b=c", "/~user/", "/a//b", "/x.json"]
    static let queries = ["", "?q=1", "?a=1&a=2", "?x=%2B%26", "?flag", "?=empty", "?k=v%20w&z"]

    static func randomHeaders(_ rng: inout SplitMix64) -> [(String, String)] {
        (0..<Int.random(in: 0...6, using: &rng)).map { _ in (names.randomElement(using: &rng)!, values.randomElement(using: &rng)!) }
    }

    static func randomURL(_ rng: inout SplitMix64) -> String {
        let scheme = Bool.random(using: &rng) ? "http" : "https"
        let host = ["example.com", "127.0.0.1", "api.example.com:8443", "[::1]:8080", "h:80"].randomElement(using: &rng)!
        return "\(scheme)://\(host)\(pathParts.randomElement(using: &rng)!)\(queries.randomElement(using: &rng)!)"
    }

    @Test("500 random SluiceCore requests round-trip through swift-http-types unchanged")
    func sluiceRequestsRoundTrip() throws {
        var rng = SplitMix64(state: 0x5EED)
        for index in 0..<500 {
            let url = Self.randomURL(&rng)
            let method = SluiceCore.HTTPMethod(rawValue: Self.methods.randomElement(using: &rng)!)
            let headers = try SluiceCore.HTTPHeaders(validating: Self.randomHeaders(&rng))
            let original = try SluiceCore.HTTPRequest(urlString: url, method: method, headers: headers)
            let converted = try HTTPTypes.HTTPRequest(original)
            let back = try SluiceCore.HTTPRequest(converted)
            #expect(back.url.absoluteString == original.url.absoluteString, "input \(index): \(url)")
            #expect(back.method == original.method, "input \(index)")
            #expect(back.headers == original.headers, "input \(index)")
            #expect(back.headers.map(\.name) == original.headers.map(\.name), "input \(index): spelling")
            #expect(converted.method.rawValue == method.rawValue)
        }
    }

    @Test("500 random swift-http-types requests round-trip through SluiceCore unchanged")
    func httpTypesRequestsRoundTrip() throws {
        var rng = SplitMix64(state: 0xC0FFEE)
        for index in 0..<500 {
            var fields = HTTPFields()
            for (name, value) in Self.randomHeaders(&rng) { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            let url = Self.randomURL(&rng)
            let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            let original = HTTPTypes.HTTPRequest(
                method: HTTPTypes.HTTPRequest.Method(Self.methods.randomElement(using: &rng)!)!,
                scheme: String(parts[0].dropLast()), authority: String(parts[2]), path: "/" + parts[3], headerFields: fields)
            let back = try HTTPTypes.HTTPRequest(SluiceCore.HTTPRequest(original))
            #expect(back == original, "input \(index): \(url)")
            #expect(back.headerFields.map(\.name.rawName) == original.headerFields.map(\.name.rawName), "input \(index)")
            #expect(back.headerFields.map(\.value) == original.headerFields.map(\.value), "input \(index)")
        }
    }

    @Test("responses round-trip both ways: every status code 100–999, repeated fields in order")
    func responsesRoundTrip() throws {
        var rng = SplitMix64(state: 42)
        for code in 100...999 {
            let headers = try SluiceCore.HTTPHeaders(validating: Self.randomHeaders(&rng))
            let original = SluiceCore.HTTPResponse(statusCode: code, headers: headers)
            let converted = try HTTPTypes.HTTPResponse(original)
            #expect(converted.status.code == code)
            let back = try SluiceCore.HTTPResponse(converted)
            #expect(back == original, "status \(code)")
            #expect(try HTTPTypes.HTTPResponse(back) == converted)
        }
        let named = try HTTPTypes.HTTPResponse(SluiceCore.HTTPResponse(statusCode: 404))
        #expect(named.status.reasonPhrase == "Not Found")
        let url = URL(string: "https://example.com/x")!
        let kept = try SluiceCore.HTTPResponse(HTTPTypes.HTTPResponse(status: .ok), url: url, httpVersion: .http2)
        #expect(kept.url == url && kept.httpVersion == .http2)
    }

    @Test("the URL's credentials and fragment are not part of :authority or :path; an empty path is /")
    func urlParts() throws {
        let request = try SluiceCore.HTTPRequest(urlString: "https://user:p%40ss@api.example.com:8443/v1/items?x=%2B#frag")
        let converted = try HTTPTypes.HTTPRequest(request)
        #expect(converted.scheme == "https")
        #expect(converted.authority == "api.example.com:8443")
        #expect(converted.path == "/v1/items?x=%2B")
        let bare = try HTTPTypes.HTTPRequest(SluiceCore.HTTPRequest(urlString: "http://example.com?q=1"))
        #expect(bare.path == "/?q=1")
        let ipv6 = try HTTPTypes.HTTPRequest(SluiceCore.HTTPRequest(urlString: "http://[::1]:8080"))
        #expect(ipv6.authority == "[::1]:8080" && ipv6.path == "/")
    }

    @Test("what the other side cannot hold is a typed error, never a trap")
    func refusals() throws {
        func code(_ body: () throws -> Void) -> SluiceError.Code? {
            do { try body(); return nil } catch { return (error as? SluiceError)?.code }
        }
        let connect = HTTPTypes.HTTPRequest(method: .connect, scheme: nil, authority: "example.com:443", path: nil)
        #expect(code { _ = try SluiceCore.HTTPRequest(connect) } == .httpTypesUnsupported)
        var extended = HTTPTypes.HTTPRequest(method: .connect, scheme: "https", authority: "example.com", path: "/chat")
        extended.extendedConnectProtocol = "websocket"
        #expect(code { _ = try SluiceCore.HTTPRequest(extended) } == .httpTypesUnsupported)
        let asterisk = HTTPTypes.HTTPRequest(method: .options, scheme: "https", authority: "example.com", path: "*")
        #expect(code { _ = try SluiceCore.HTTPRequest(asterisk) } == .httpTypesUnsupported)
        let ftp = HTTPTypes.HTTPRequest(method: .get, scheme: "ftp", authority: "example.com", path: "/f")
        #expect(code { _ = try SluiceCore.HTTPRequest(ftp) } == .invalidURL)
        let badMethod = SluiceCore.HTTPRequest(url: URL(string: "https://example.com/")!, method: SluiceCore.HTTPMethod(rawValue: "BAD METHOD"))
        #expect(code { _ = try HTTPTypes.HTTPRequest(badMethod) } == .invalidMethod)
        #expect(code { _ = try HTTPTypes.HTTPResponse(SluiceCore.HTTPResponse(statusCode: 1000)) } == .httpTypesUnsupported)
        #expect(code { _ = try HTTPTypes.HTTPResponse(SluiceCore.HTTPResponse(statusCode: -1)) } == .httpTypesUnsupported)
        var lenient = HTTPFields()
        lenient.append(HTTPField(name: .init("X-Bad")!, lenientValue: Array("a\u{1}b".utf8)))
        #expect(code { _ = try SluiceCore.HTTPHeaders(lenient) } == .invalidHeaderValue)
    }
}
