import Foundation
import SluiceCore
import Testing

@Suite("HTTPRequest and HTTPResponse")
struct HTTPMessageTests {
    @Test("a request from a string has the defaults")
    func requestDefaults() throws {
        let request = HTTPRequest(url: "http://127.0.0.1:8080/get?x=1")
        #expect(request.method == .get)
        #expect(request.headers.isEmpty)
        #expect(!request.body.isPresent)
        #expect(request.timeout == nil)
        #expect(request.shouldHandleCookies)
        #expect(request.cachePolicy == .useProtocolCachePolicy)
        #expect(request.description == "GET http://127.0.0.1:8080/get?x=1")
        let withCredentials = HTTPRequest(url: "https://alice:s3cret@example.com/a", method: .post)
        #expect(withCredentials.description == "POST https://example.com/a")
        #expect(withCredentials.url.password == "s3cret")
    }

    @Test("a request from a literal needs no try; one from a runtime string throws")
    func literalAndRuntimeStrings() throws {
        let literal = HTTPRequest(url: "https://example.com/items?page=2", method: .post)
        #expect(literal.url.absoluteString == "https://example.com/items?page=2")
        #expect(literal.method == .post)
        let typed = "https://example.com/items"
        let runtime = try HTTPRequest(urlString: typed, timeout: 5)
        #expect(runtime.url.absoluteString == typed && runtime.timeout == 5)
        #expect(throws: SluiceError.self) { try HTTPRequest(urlString: "https://example.com/items", timeout: 0) }
    }

    @Test("a malformed literal traps, as URL(string:)! would")
    func malformedLiteralTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = HTTPRequest(url: "not a url")
        }
        await #expect(processExitsWith: .failure) {
            _ = HTTPRequest(url: "ftp://example.com/file")
        }
    }

    @Test("invalid requests are refused with the right code", arguments: [
        ("ftp://example.com/file", SluiceError.Code.invalidURL),
        ("not a url", .invalidURL),
        ("https:///path", .invalidURL),
    ])
    func invalidURLs(url: String, code: SluiceError.Code) {
        let error = #expect(throws: SluiceError.self) { try HTTPRequest(urlString: url) }
        #expect(error?.code == code)
    }

    @Test("invalid methods and timeouts are refused")
    func invalidMethodAndTimeout() throws {
        var request = HTTPRequest(url: "https://example.com")
        request.method = "GET /evil HTTP/1.1\r\n"
        #expect(throws: SluiceError.self) { try request.validate() }
        #expect((try? HTTPMethod(validating: "BAD METHOD")) == nil)
        #expect(try HTTPMethod(validating: "PROPFIND").rawValue == "PROPFIND")
        request.method = .get
        request.timeout = 0
        let error = #expect(throws: SluiceError.self) { try request.validate() }
        #expect(error?.code == .invalidTimeout)
        #expect(error?.request != nil)
    }

    @Test("idempotent methods")
    func idempotence() {
        #expect(HTTPMethod.get.isIdempotent && HTTPMethod.put.isIdempotent && HTTPMethod.delete.isIdempotent)
        #expect(!HTTPMethod.post.isIdempotent && !HTTPMethod.patch.isIdempotent)
    }

    @Test("a response parses MIME type, charset, encoding and length from its headers")
    func responseHead() throws {
        let response = HTTPResponse(
            statusCode: 404,
            headers: ["Content-Type": "application/problem+json; charset=ISO-8859-1", "Content-Length": "42"],
            url: URL(string: "https://example.com/final"), httpVersion: .http2)
        #expect(response.mimeType == "application/problem+json")
        #expect(response.textEncodingName == "ISO-8859-1")
        #expect(response.stringEncoding == .isoLatin1)
        #expect(response.expectedContentLength == 42)
        #expect(response.reasonPhrase == "Not Found")
        #expect(!response.isSuccess)
        #expect(response.description == "HTTP/2 404 Not Found")
    }

    @Test("a response without or with a broken Content-Type has no MIME type")
    func missingContentType() {
        #expect(HTTPResponse(statusCode: 200).mimeType == nil)
        #expect(HTTPResponse(statusCode: 200, headers: ["Content-Type": "garbage"]).contentType == nil)
        #expect(HTTPResponse(statusCode: 200, headers: ["Content-Length": "-1"]).expectedContentLength == nil)
    }

    @Test("reason phrases")
    func reasons() {
        #expect(HTTPResponse.reasonPhrase(forStatusCode: 200) == "OK")
        #expect(HTTPResponse.reasonPhrase(forStatusCode: 418) == "I'm a teapot")
        #expect(HTTPResponse.reasonPhrase(forStatusCode: 499) == "Client Error")
        #expect(HTTPResponse.reasonPhrase(forStatusCode: 999) == "Unknown")
    }

    @Test("a URL string keeps its bytes where a URL can hold them; what it cannot hold is escaped once", arguments: [
        // Kept byte for byte: valid as written.
        ("https://example.com/a?b=2&a=%5B1%5D&c&d=%7e#top", "https://example.com/a?b=2&a=%5B1%5D&c&d=%7e#top"),
        // Foundation's URL cannot hold `[` or `]` in a query: percent-encoded (AFNetworking keeps them as NSURL does).
        ("https://example.com/a?hd=[1]", "https://example.com/a?hd=%5B1%5D"),
        // Escapes already there are kept (URL(string:) alone gave a%2520b and %252B).
        ("https://example.com/a?q=a%20b|c&p=%2B", "https://example.com/a?q=a%20b%7Cc&p=%2B"),
        ("https://example.com/a b/%41?x=1#f%20[x]#y", "https://example.com/a%20b/%41?x=1#f%20%5Bx%5D%23y"),
        ("https://example.com/?a=100%&b=%zz", "https://example.com/?a=100%25&b=%25zz"),
        ("https://example.com/caf\u{E9}?q=\u{6771}", "https://example.com/caf%C3%A9?q=%E6%9D%B1"),
        // The authority is Foundation's: IPv6 brackets stay.
        ("http://[::1]:8080/p?q=[1]", "http://[::1]:8080/p?q=%5B1%5D"),
    ])
    func urlStringBytes(written: String, sent: String) throws {
        #expect(try HTTPRequest(urlString: written).url.absoluteString == sent)
    }

    @Test("a relative URL string keeps its escapes too")
    func relativeURLStringBytes() throws {
        let base = URL(string: "https://example.com/api/")!
        #expect(try HTTPRequest(urlString: "items?q=a%20b|[c]", relativeTo: base).url.absoluteString
            == "https://example.com/api/items?q=a%20b%7C%5Bc%5D")
    }
}

@Suite("Framing and injection rules")
struct FramingRuleTests {
    @Test("Content-Length field values: one length, agreeing lists, lists that disagree, and rubbish", arguments: [
        ("5", HTTPResponse.ContentLengthField.length(5)), ("0", .length(0)), ("5, 5", .length(5)), ("5,5 , 5", .length(5)),
        (" 42 ", .length(42)), ("5, 96", .conflicting), ("96,5", .conflicting), ("", .unreadable), ("5,", .unreadable),
        ("-1", .unreadable), ("5 5", .unreadable), ("0x10", .unreadable), ("99999999999999999999", .unreadable),
        ("5, abc", .unreadable),
    ])
    func contentLengthField(value: String, expected: HTTPResponse.ContentLengthField) {
        #expect(HTTPResponse.contentLengthField(value) == expected)
    }

    @Test("a response's expected length reads an agreeing list as one length and a disagreeing one as none")
    func expectedLength() throws {
        #expect(HTTPResponse(statusCode: 200, headers: ["Content-Length": "5, 5"]).expectedContentLength == 5)
        #expect(HTTPResponse(statusCode: 200, headers: ["Content-Length": "5, 96"]).expectedContentLength == nil)
    }

    @Test("methods that would change the request line or add a header are refused for sending", arguments: [
        "GET /x HTTP/1.1\r\nX-Injected: yes\r\nX-Pad:", "PRO PFIND", "GET\0X", "", "GET\r", "GET\t", "G\u{7F}", "GÉT", "(GET)",
    ])
    func hostileMethods(method: String) throws {
        let request = HTTPRequest(url: URL(string: "http://example.com/x")!, method: HTTPMethod(rawValue: method))
        #expect(throws: SluiceError.self) { try request.validateForSending() }
        let error = #expect(throws: SluiceError.self) { try HTTPMethod(validating: method) }
        #expect(error?.code == .invalidMethod)
    }

    @Test("token methods of any kind pass", arguments: ["GET", "PROPFIND", "M-SEARCH", "X_CUSTOM", "PATCH", "BREW!"])
    func tokenMethods(method: String) throws {
        try HTTPRequest(url: URL(string: "https://example.com/x")!, method: HTTPMethod(rawValue: method)).validateForSending()
    }

    @Test("no header value can hold CR, LF or NUL, so headers cannot inject lines", arguments: ["a\r\nX: y", "a\nb", "a\0b", "a\rb"])
    func headerValues(value: String) {
        #expect(throws: SluiceError.self) { try HTTPHeader(name: "X-Test", value: value) }
        #expect(throws: SluiceError.self) { try HTTPHeader(name: "X-Test\r\nY", value: "v") }
    }
}
