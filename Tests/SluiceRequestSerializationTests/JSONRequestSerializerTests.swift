import Foundation
import SluiceCore
import SluiceRequestSerialization
import Testing

@Suite("JSONRequestSerializer")
struct JSONRequestSerializerTests {
    private let serializer = JSONRequestSerializer(
        http: HTTPRequestSerializer(environment: [:], applicationName: "t", applicationVersion: "1"))

    private func body(_ request: HTTPRequest) -> Data? {
        if case .bytes(let data) = request.body { return data }
        return nil
    }

    @Test("what it writes parses back to the same tree")
    func parsesBack() throws {
        let parameters: Parameters = [
            "string": "a \"quoted\" \\ line\nbreak / é 👍", "int": -42, "double": 0.1, "true": true, "null": nil,
            "array": [1, [2, [3]], ["k": "v"]], "empty": [:], "emptyArray": [],
        ]
        for options: JSONWritingOptions in [[], .sortedKeys, .prettyPrinted, [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]] {
            serializer.writingOptions = options
            let request = try serializer.request(method: .post, urlString: "https://example.com", parameters: parameters)
            let data = try #require(body(request))
            let decoded = try JSONDecoder().decode(Parameters.self, from: data)
            #expect(decoded == parameters, "options \(options.rawValue)")
            #expect(request.headers["Content-Type"] == "application/json")
        }
    }

    @Test("a Content-Type already set is kept")
    func keepsContentType() throws {
        var request = try serializer.http.makeRequest(method: .put, urlString: "https://example.com", relativeTo: nil)
        try request.headers.set(name: "Content-Type", value: "application/vnd.api+json")
        let serialized = try serializer.serialize(request, with: ["a": 1])
        #expect(serialized.headers["Content-Type"] == "application/vnd.api+json")
    }

    @Test("values JSON cannot hold are typed errors, never crashes", arguments: [
        Parameters.set([1]), .data(Data([1])), .double(.nan), .double(.infinity), ["deep": [["x": .double(-.infinity)]]],
        .decimal(.nan),
    ])
    func invalidValues(value: Parameters) {
        let error = #expect(throws: SluiceError.self) {
            try serializer.request(method: .post, urlString: "https://example.com", parameters: ["v": value])
        }
        #expect(error?.code == .jsonInvalidValue)
        #expect(error?.request != nil)
    }

    @Test("Swift strings cannot hold a lone surrogate: one decoded from UTF-16 arrives repaired and valid")
    func loneSurrogate() throws {
        let repaired = String(decoding: [0x61, 0xD800, 0x62] as [UInt16], as: UTF16.self)
        let request = try serializer.request(method: .post, urlString: "https://example.com", parameters: ["s": .string(repaired)])
        let decoded = try JSONDecoder().decode([String: String].self, from: #require(body(request)))
        #expect(decoded["s"] == "a\u{FFFD}b")
    }

    @Test("an Encodable body goes through the caller's JSONEncoder")
    func encodableBody() throws {
        struct Item: Encodable {
            var itemName = "sluice"
            var createdAt = Date(timeIntervalSince1970: 0)
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let request = try serializer.request(method: .post, urlString: "https://example.com/items", body: Item(), encoder: encoder)
        #expect(String(decoding: try #require(body(request)), as: UTF8.self) == #"{"created_at":0,"item_name":"sluice"}"#)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["User-Agent"] == "t/1 (Linux; \(request.headers["User-Agent"]!.dropFirst("t/1 (Linux; ".count))")

        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws { throw EncodingError.invalidValue(1, .init(codingPath: [], debugDescription: "no")) }
        }
        let error = #expect(throws: SluiceError.self) {
            try serializer.request(method: .post, urlString: "https://example.com", body: Failing())
        }
        #expect(error?.code == .jsonEncodingFailed)
        #expect((error?.underlying as? ForeignError)?.base is EncodingError)
    }
}
