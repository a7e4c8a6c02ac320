import Foundation
import SluiceCore
import SluiceRequestSerialization
import SluiceTestSupport
import Testing

@Suite("Query strings")
struct QueryStringSerializationTests {
    @Test("a bare empty field is a pair: the writer separates it as the pairs do")
    func bareEmptyField() {
        // Found by Tools/Fuzz (FuzzQueryString): the one-pass writer wrote no `&` after a pair of no bytes.
        let parameters: Parameters = ["": .null, "a": 1, "b": ["": .null]]
        let joined = QueryStringSerialization.pairs(from: parameters).map(\.urlEncoded).joined(separator: "&")
        #expect(joined == "&a=1&b%5B%5D")
        #expect(QueryStringSerialization.serialize(parameters) == joined)
        #expect(QueryStringSerialization.serialize(["": [Parameters.null, .null]]) == "%5B%5D&%5B%5D")
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

    @Test("a decimal's own digits in a query, a form body and multipart form fields")
    func decimalDigits() throws {
        let amount = try #require(Decimal(string: "1.123456"))
        let parameters = try Parameters(encoding: ["amount": amount])
        #expect(QueryStringSerialization.serialize(parameters) == "amount=1.123456")
        #expect(QueryStringSerialization.formFields(from: parameters) == [FormField(name: "amount", value: Data("1.123456".utf8))])
        let serializer = HTTPRequestSerializer()
        let request = try serializer.request(method: .post, urlString: "https://example.com", parameters: parameters)
        guard case .bytes(let body) = request.body else {
            Issue.record("the form body is not bytes: \(request.body)")
            return
        }
        #expect(body == Data("amount=1.123456".utf8))
        #expect(serializer.formFields(from: parameters)?.first?.value == Data("1.123456".utf8))
    }

    @Test("custom array key closure")
    func customArrayKeys() {
        var options = QueryStringSerialization.Options()
        options.arrayEncoding = .custom { key, index in "\(key).\(index)" }
        #expect(QueryStringSerialization.serialize(["a": ["x", "y"]], options: options) == "a.0=x&a.1=y")
    }
}

@Suite("Query-string writer")
struct QueryStringWriterTests {
    /// A deterministic tree with every kind of value, nested.
    static func tree(seed: UInt64, depth: Int = 0) -> Parameters {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var dictionary: [(String, Parameters)] = []
        for index in 0..<Int(3 + next() % 4) {
            let key = ["a", "b c", "ключ", "k&=", "Z", "déjà"][Int(next() % 6)] + "\(index)"
            let value: Parameters
            switch next() % 9 {
            case 0: value = .string("v \(next()) /?#[]é👍")
            case 1: value = .integer(Int(next()) - 1_000_000)
            case 2: value = .double(Double(next()) / 7)
            case 3: value = .bool(next() % 2 == 0)
            case 4: value = .null
            case 5: value = .set([.string("x\(next() % 5)"), .integer(Int(next() % 5))])
            case 6: value = depth < 3 ? tree(seed: next(), depth: depth + 1) : .string("leaf")
            case 7: value = .array([.integer(1), depth < 3 ? tree(seed: next(), depth: depth + 1) : .null, .string("s")])
            default: value = [:]
            }
            dictionary.append((key, value))
        }
        var ordered = Parameters.dictionary([:])
        if case .dictionary(var storage) = ordered {
            for (key, value) in dictionary { storage[key] = value }
            ordered = .dictionary(storage)
        }
        return ordered
    }

    @Test("the one-pass writer gives exactly the escaped pairs, for every option", arguments: 0..<40)
    func writerMatchesPairs(seed: Int) {
        let parameters = Self.tree(seed: UInt64(seed) &* 0x9E3779B97F4A7C15)
        var options = QueryStringSerialization.Options()
        options.arrayEncoding = [.brackets, .noBrackets, .indexInBrackets][seed % 3]
        options.boolEncoding = seed % 2 == 0 ? .numeric : .literal
        options.spaceEncoding = seed % 4 < 2 ? .percentEscaped : .plusReplaced
        options.nilEncoding = [.bareKey, .dropKey, .dropValue, .null][seed % 4]
        options.keyOrdering = seed % 5 == 0 ? .insertionOrder : .alphabetized
        options.keyEncoding = seed % 7 == 0 ? .convertToSnakeCase : .useDefaultKeys
        let expected = QueryStringSerialization.pairs(from: parameters, options: options)
            .map { $0.encoded(spaces: options.spaceEncoding) }.joined(separator: "&")
        #expect(QueryStringSerialization.serialize(parameters, options: options) == expected)
    }
}
