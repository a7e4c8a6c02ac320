import Foundation
import SluiceConformance
import SluiceCore
import SluiceRequestSerialization
import SluiceTestSupport
import Testing

@Suite("Query strings")
struct QueryStringSerializationTests {
    @Test("every query-string, HTTP and JSON serializer vector passes", arguments: [
        "request.query-string", "request.http-serializer", "request.json-serializer",
    ])
    func vectors(suite name: String) async throws {
        let suite = try #require(ConformanceRunner.allSuites.first { $0.name == name })
        let results = try await suite.run(in: TestEnvironment.conformanceContext)
        #expect(!results.isEmpty)
        for result in results where !result.passed { Issue.record("\(result.id): \(result.detail ?? "")") }
    }

    @Test("AFNetworking's reserved-character vector")
    func reservedCharacters() {
        #expect(QueryStringSerialization.percentEscape(" :#[]@!$&'()*+,;=/?") == "%20%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/?")
    }

    @Test("escaping never splits a character and round-trips", arguments: [
        "👍🏽🇫🇷👨‍👩‍👧", "e\u{301}", "東京", String(repeating: "🔴🟠🟡🟢🔵🟣", count: 20), "a\u{0}b",
    ])
    func roundTrip(text: String) {
        let escaped = QueryStringSerialization.percentEscape(text)
        #expect(escaped.allSatisfy { $0.isASCII })
        #expect(escaped.removingPercentEncoding == text)
    }

    @Test("nested parameters")
    func nested() {
        let parameters: Parameters = ["b": [1, 2], "a": ["x": "y z"], "n": nil]
        #expect(QueryStringSerialization.serialize(parameters) == "a%5Bx%5D=y%20z&b%5B%5D=1&b%5B%5D=2&n")
    }

    @Test("custom array key closure")
    func customArrayKeys() {
        var options = QueryStringSerialization.Options()
        options.arrayEncoding = .custom { key, index in "\(key).\(index)" }
        #expect(QueryStringSerialization.serialize(["a": ["x", "y"]], options: options) == "a.0=x&a.1=y")
    }
}
