import Foundation
import SluiceCore
import SluiceRequestSerialization
import Testing

@Suite("HTTPRequestSerializer")
struct HTTPRequestSerializerTests {
    private func serializer(_ environment: [String: String] = ["LANG": "en_US.UTF-8"]) -> HTTPRequestSerializer {
        HTTPRequestSerializer(environment: environment, applicationName: "SluiceTests", applicationVersion: "2.1")
    }

    @Test("Accept-Language from the locale variables, AFNetworking's format", arguments: [
        (["LANG": "en_US.UTF-8"], "en-US;q=1"),
        (["LANG": "C"], "en;q=1"),
        ([:], "en;q=1"),
        (["LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR.UTF-8"], "fr-FR;q=1"),
        (["LANG": "de_DE", "LC_MESSAGES": "pt_BR@latin"], "pt-BR;q=1"),
        (["LANGUAGE": "fr:de_DE:en", "LANG": "en_GB.UTF-8"], "fr;q=1, de-DE;q=0.9, en;q=0.8, en-GB;q=0.7"),
        (["LANGUAGE": "fr:de", "LANG": "C.UTF-8"], "en;q=1"),
        (["LANGUAGE": "a1:b2:c3:d4:e5:f6:g7:h8", "LANG": "en_US"], "a1;q=1, b2;q=0.9, c3;q=0.8, d4;q=0.7, e5;q=0.6, f6;q=0.5"),
    ])
    func acceptLanguage(environment: [String: String], expected: String) {
        #expect(serializer(environment).value(forHTTPHeaderField: "Accept-Language") == expected)
    }

    @Test("User-Agent names the application, Linux, the distribution and the kernel, in ASCII")
    func userAgent() throws {
        let agent = try #require(serializer().value(forHTTPHeaderField: "User-Agent"))
        #expect(agent.hasPrefix("SluiceTests/2.1 (Linux; "))
        #expect(agent.contains("kernel "))
        #expect(agent.allSatisfy { $0.isASCII })
        let accented = HTTPRequestSerializer(environment: [:], applicationName: "Café☕Ünïcödé", applicationVersion: "1")
        let transliterated = try #require(accented.value(forHTTPHeaderField: "User-Agent"))
        #expect(transliterated.hasPrefix("CafeUnicode/1 (Linux"))
    }

    @Test("default headers: set, read ignoring case, remove with nil, refuse injection")
    func defaultHeaders() throws {
        let serializer = serializer()
        try serializer.setValue("application/json", forHTTPHeaderField: "Accept")
        #expect(serializer.value(forHTTPHeaderField: "accept") == "application/json")
        try serializer.setValue(nil, forHTTPHeaderField: "ACCEPT")
        #expect(serializer.value(forHTTPHeaderField: "Accept") == nil)
        let error = #expect(throws: SluiceError.self) {
            try serializer.setValue("x\r\nInjected: 1", forHTTPHeaderField: "X-Token")
        }
        #expect(error?.code == .invalidHeaderValue)
        #expect(serializer.value(forHTTPHeaderField: "X-Token") == nil)
        #expect(throws: SluiceError.self) { try serializer.setValue("1", forHTTPHeaderField: "Bad\nName") }
    }

    @Test("Basic authorization from user and password, and clearing it")
    func authorization() throws {
        let serializer = serializer()
        serializer.setAuthorizationHeader(username: "user", password: "passwd")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic dXNlcjpwYXNzd2Q=")
        let request = try serializer.request(method: .get, urlString: "https://example.com")
        #expect(request.headers["Authorization"] == "Basic dXNlcjpwYXNzd2Q=")
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("per-request headers win over defaults")
    func perRequestHeaders() throws {
        let serializer = serializer()
        try serializer.setValue("Default", forHTTPHeaderField: "X-Client")
        var request = try serializer.makeRequest(method: .get, urlString: "https://example.com", relativeTo: nil)
        try request.headers.set(name: "x-client", value: "Mine")
        let serialized = try serializer.serialize(request, with: nil)
        #expect(serialized.headers.values(for: "X-Client") == ["Mine"])
        #expect(serialized.headers["User-Agent"]?.hasPrefix("SluiceTests/2.1") == true)
    }

    @Test("a custom query closure replaces the algorithm")
    func customQuery() throws {
        let serializer = serializer()
        serializer.setQueryStringSerialization { _, _ in "test" }
        let request = try serializer.request(method: .get, urlString: "http://example.com", parameters: ["key": "value"])
        #expect(request.url.absoluteString == "http://example.com?test")
        serializer.resetQueryStringSerialization()
        let reset = try serializer.request(method: .get, urlString: "http://example.com", parameters: ["key": "value"])
        #expect(reset.url.absoluteString == "http://example.com?key=value")
    }

    @Test("a throwing query closure fails the request with its error")
    func throwingQuery() throws {
        struct Refused: Error {}
        let serializer = serializer()
        serializer.setQueryStringSerialization { _, _ in throw Refused() }
        let error = #expect(throws: SluiceError.self) {
            try serializer.request(method: .get, urlString: "http://example.com", parameters: ["a": 1])
        }
        #expect(error?.code == .queryStringFailed)
        #expect((error?.underlying as? ForeignError)?.base is Refused)
        #expect(error?.request?.url.absoluteString == "http://example.com")

        serializer.setQueryStringSerialization { _, _ in throw SluiceError(.invalidURL, "mine") }
        let own = #expect(throws: SluiceError.self) {
            try serializer.request(method: .post, urlString: "http://example.com", parameters: ["a": 1])
        }
        #expect(own?.message == "mine")
    }

    @Test("timeout, cookie handling and cache policy are carried into requests")
    func requestOptions() throws {
        let serializer = serializer()
        serializer.timeoutInterval = 12.5
        serializer.shouldHandleCookies = false
        serializer.cachePolicy = .reloadIgnoringCache
        let request = try serializer.request(method: .get, urlString: "https://example.com")
        #expect(request.timeout == 12.5)
        #expect(!request.shouldHandleCookies)
        #expect(request.cachePolicy == .reloadIgnoringCache)
    }

    @Test("the URI methods can be changed and compare ignoring case")
    func uriMethods() throws {
        let serializer = serializer()
        #expect(serializer.httpMethodsEncodingParametersInURI == ["GET", "HEAD", "DELETE"])
        serializer.httpMethodsEncodingParametersInURI = ["get", "post"]
        let post = try serializer.request(method: .post, urlString: "http://example.com", parameters: ["a": "b"])
        #expect(post.url.absoluteString == "http://example.com?a=b")
        let delete = try serializer.request(method: .delete, urlString: "http://example.com", parameters: ["a": "b"])
        #expect(delete.url.absoluteString == "http://example.com")
        guard case .bytes(let body) = delete.body else { Issue.record("DELETE should have a body now"); return }
        #expect(String(decoding: body, as: UTF8.self) == "a=b")
    }

    @Test("1,000 concurrent header writers and readers do not race")
    func concurrentWriters() async throws {
        let serializer = serializer()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    try? serializer.setValue("\(index)", forHTTPHeaderField: "X-Writer-\(index % 100)")
                    try? serializer.setValue("\(index)", forHTTPHeaderField: "X-Unique-\(index)")
                    _ = serializer.value(forHTTPHeaderField: "X-Writer-\(index % 7)")
                    _ = try? serializer.request(method: .get, urlString: "https://example.com", parameters: ["i": .integer(index)])
                }
            }
        }
        let headers = serializer.httpRequestHeaders
        #expect(headers.filter { $0.name.hasPrefix("X-Unique-") }.count == 1_000)
        #expect(headers.filter { $0.name.hasPrefix("X-Writer-") }.count == 100)
    }
}
