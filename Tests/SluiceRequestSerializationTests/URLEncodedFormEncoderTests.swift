import Foundation
import SluiceCore
import SluiceRequestSerialization
import Testing

@Suite("URLEncodedFormEncoder")
struct URLEncodedFormEncoderTests {
    struct Profile: Encodable {
        var displayName = "Ada Lovelace"
        var tags = ["math", "engines"]
        var active = true
        var nickname: String? = nil
        var address = Address()
        var joined = Date(timeIntervalSince1970: 1_000)
        var avatar = Data([0xFF, 0x00, 0x41])

        struct Address: Encodable {
            var city = "London"
            var zip: String? = nil
        }
    }

    @Test("the defaults give AFNetworking's output for the same values")
    func defaultsMatchAFNetworking() throws {
        let encoded = try URLEncodedFormEncoder().encode(Profile())
        let same: Parameters = [
            "displayName": "Ada Lovelace", "tags": ["math", "engines"], "active": true,
            "address": ["city": "London"], "joined": .double(Date(timeIntervalSince1970: 1_000).timeIntervalSinceReferenceDate),
            "avatar": .string(Data([0xFF, 0x00, 0x41]).base64EncodedString()),
        ]
        #expect(encoded == QueryStringSerialization.serialize(same))
        #expect(encoded.hasPrefix("active=1&address%5Bcity%5D=London&avatar=/wBB&displayName=Ada%20Lovelace"))
    }

    @Test("array, bool, space and key options")
    func options() throws {
        var encoder = URLEncodedFormEncoder()
        encoder.options.arrayEncoding = .noBrackets
        encoder.options.boolEncoding = .literal
        encoder.options.spaceEncoding = .plusReplaced
        encoder.options.keyEncoding = .convertToSnakeCase
        encoder.dateEncoding = .iso8601
        let encoded = try encoder.encode(Profile())
        #expect(encoded == "active=true&address%5Bcity%5D=London&avatar=/wBB&display_name=Ada+Lovelace&joined=1970-01-01T00%3A16%3A40Z&tags=math&tags=engines")
        encoder.options.arrayEncoding = .indexInBrackets
        encoder.options.keyEncoding = .convertToKebabCase
        #expect(try encoder.encode(Profile()).contains("display-name=Ada+Lovelace"))
        #expect(try encoder.encode(Profile()).contains("tags%5B0%5D=math&tags%5B1%5D=engines"))
        encoder.options.keyEncoding = .custom { $0.uppercased() }
        #expect(try encoder.encode(Profile()).contains("DISPLAYNAME="))
    }

    @Test("nil optionals: left out by default, or written by the chosen nil encoding", arguments: [
        (QueryStringSerialization.Options.NilEncoding?.none, "address%5Bcity%5D=London"),
        (.some(.dropKey), "address%5Bcity%5D=London"),
        (.some(.dropValue), "address%5Bcity%5D=London&address%5Bzip%5D="),
        (.some(.null), "address%5Bcity%5D=London&address%5Bzip%5D=null"),
        (.some(.bareKey), "address%5Bcity%5D=London&address%5Bzip%5D"),
    ])
    func nilEncoding(encoding: QueryStringSerialization.Options.NilEncoding?, expectedAddress: String) throws {
        let encoder = URLEncodedFormEncoder(nilOptionalEncoding: encoding)
        let encoded = try encoder.encode(Profile())
        #expect(encoded.contains(expectedAddress + "&"), "\(encoded)")
        let nickname = encoded.contains("nickname")
        #expect(nickname == (encoding != nil && encoding.map { if case .dropKey = $0 { false } else { true } } == true))
    }

    @Test("nil values of a dictionary of optionals: left out by default, or written by the chosen nil encoding", arguments: [
        (QueryStringSerialization.Options.NilEncoding?.none, "a=x"),
        (.some(.dropKey), "a=x"),
        (.some(.dropValue), "a=x&b="),
        (.some(.null), "a=x&b=null"),
        (.some(.bareKey), "a=x&b"),
    ])
    func dictionaryNilEncoding(encoding: QueryStringSerialization.Options.NilEncoding?, expected: String) throws {
        let values: [String: String?] = ["a": "x", "b": nil]
        #expect(try URLEncodedFormEncoder(nilOptionalEncoding: encoding).encode(values) == expected)
    }

    @Test("dates and data strategies")
    func strategies() throws {
        struct Stamp: Encodable {
            var at = Date(timeIntervalSince1970: 1.5)
            var blob = Data("hi".utf8)
        }
        var encoder = URLEncodedFormEncoder(dateEncoding: .secondsSince1970)
        #expect(try encoder.encode(Stamp()) == "at=1.5&blob=aGk%3D")
        encoder.dateEncoding = .millisecondsSince1970
        encoder.dataEncoding = .custom { .string($0.map { String(format: "%02x", $0) }.joined()) }
        #expect(try encoder.encode(Stamp()) == "at=1500&blob=6869")
        encoder.dateEncoding = .custom { _ in "custom" }
        #expect(try encoder.encode(Stamp()).hasPrefix("at=custom"))
    }

    @Test("declaration order or alphabetized")
    func ordering() throws {
        struct Ordered: Encodable {
            var zeta = 1
            var alpha = 2
        }
        var encoder = URLEncodedFormEncoder()
        #expect(try encoder.encode(Ordered()) == "alpha=2&zeta=1")
        encoder.options.keyOrdering = .insertionOrder
        #expect(try encoder.encode(Ordered()) == "zeta=1&alpha=2")
    }

    @Test("a top level that is not keyed is a typed error")
    func unkeyedTopLevel() {
        let error = #expect(throws: SluiceError.self) { try URLEncodedFormEncoder().encode([1, 2]) }
        #expect(error?.code == .formEncodingFailed)
        #expect(throws: SluiceError.self) { try URLEncodedFormEncoder().encode("text") }
    }
}
