import Foundation
import SluiceCore
import Testing

@Suite("Parameters")
struct ParametersTests {
    static let numbers: [(String, Parameters)] = [
        ("[15.0]", [.integer(15)]), ("[1.5e1]", [.integer(15)]), ("[0.5]", [.double(0.5)]),
        // Found by FuzzNDJSON: the first decoded as a Double that is whole (the fraction is past its precision),
        // the second, the same Double written back by JSONEncoder, as an Int.
        ("[22222222222222222.0222222222]", [.integer(22_222_222_222_222_224)]),
        ("[2.2222222222222224e+16]", [.integer(22_222_222_222_222_224)]),
        ("[1e300]", [.double(1e300)]), ("[12345678901234567890]", [.double(1.2345678901234567e19)]),
    ]

    @Test("a JSON number that is a whole Int is an integer however it is written, and keeps its case when written back",
          arguments: numbers)
    func wholeNumbers(json: String, expected: Parameters) throws {
        let value = try Parameters(json: Data(json.utf8))
        #expect(value == expected)
        if case .array(let items) = value, case .array(let wanted) = expected {
            #expect(items.map(Self.kind) == wanted.map(Self.kind))
        }
        #expect(try Parameters(json: JSONEncoder().encode(value)) == value)
    }

    static func kind(_ value: Parameters) -> String {
        switch value {
        case .integer: "integer"
        case .double: "double"
        default: "other"
        }
    }

    @Test("literals build the tree")
    func literals() {
        let parameters: Parameters = [
            "start": 1, "ratio": 0.5, "name": "sluice", "on": true, "none": nil, "list": [1, "two"],
            "nested": ["a": ["b": 1]],
        ]
        #expect(parameters["start"] == .integer(1))
        #expect(parameters["ratio"] == .double(0.5))
        #expect(parameters["name"]?.stringValue == "sluice")
        #expect(parameters["on"] == .bool(true))
        #expect(parameters["none"]?.isNull == true)
        #expect(parameters["list"]?[1] == "two")
        #expect(parameters["nested"]?["a"]?["b"] == 1)
        #expect(parameters.dictionaryValue?.keys.elementsEqual(["start", "ratio", "name", "on", "none", "list", "nested"]) == true)
    }

    @Test("dictionaries are equal in any key order; integers are not doubles")
    func equality() {
        let a: Parameters = ["x": 1, "y": 2]
        let b: Parameters = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Parameters.integer(1) != .double(1))
        #expect(Parameters.set([1, 2]) == .set([2, 1]))
    }

    struct Query: Encodable {
        var pageSize: Int
        var tags: [String]
        var filter: Filter?
        var token: String?
        var payload: Data
        var home: URL
        var createdAt: Date

        struct Filter: Encodable {
            var minimumPrice: Double
            var inStock: Bool
        }
    }

    @Test("Encodable values become the same tree, in declaration order, nil optionals left out")
    func encodable() throws {
        let query = Query(
            pageSize: 20, tags: ["a", "b"], filter: .init(minimumPrice: 9.5, inStock: true), token: nil,
            payload: Data([1, 2, 3]), home: URL(string: "https://example.com/x")!,
            createdAt: Date(timeIntervalSince1970: 0))
        let parameters = try Parameters(encoding: query)
        let expected: Parameters = [
            "pageSize": 20, "tags": ["a", "b"], "filter": ["minimumPrice": 9.5, "inStock": true],
            "payload": .data(Data([1, 2, 3])), "home": "https://example.com/x",
            "createdAt": .double(Date(timeIntervalSince1970: 0).timeIntervalSinceReferenceDate),
        ]
        #expect(parameters == expected)
        #expect(parameters.dictionaryValue?.keys.elementsEqual(["pageSize", "tags", "filter", "payload", "home", "createdAt"]) == true)
    }

    @Test("encoder strategies: snake and kebab keys, dates, data")
    func strategies() throws {
        let query = Query(
            pageSize: 1, tags: [], filter: .init(minimumPrice: 1, inStock: false), token: "t", payload: Data("hi".utf8),
            home: URL(string: "https://a.b")!, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        let snake = try ParametersEncoder(dateEncoding: .iso8601, dataEncoding: .base64, keyEncoding: .convertToSnakeCase)
            .encode(query)
        #expect(snake["page_size"] == 1)
        #expect(snake["filter"]?["minimum_price"] == .double(1))
        #expect(snake["created_at"] == "2023-11-14T22:13:20Z")
        #expect(snake["payload"] == "aGk=")
        let kebab = try ParametersEncoder(dateEncoding: .millisecondsSince1970, keyEncoding: .convertToKebabCase).encode(query)
        #expect(kebab["page-size"] == 1)
        #expect(kebab["created-at"] == .double(1_700_000_000_000))
        let custom = try ParametersEncoder(keyEncoding: .custom { $0.uppercased() }).encode(query)
        #expect(custom["PAGESIZE"] == 1)
    }

    @Test("snake case splits acronyms as JSONEncoder does")
    func snakeCaseAcronyms() throws {
        struct Keys: Encodable {
            var myURLValue = 1
            var userID = 2
            var simple = 3
        }
        let parameters = try ParametersEncoder(keyEncoding: .convertToSnakeCase).encode(Keys())
        #expect(parameters == ["my_url_value": 1, "user_id": 2, "simple": 3])
    }

    @Test("top-level arrays and scalars, explicit nil")
    func topLevel() throws {
        #expect(try Parameters(encoding: [1, 2]) == [1, 2])
        #expect(try Parameters(encoding: "x") == "x")
        struct ExplicitNil: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encodeNil(forKey: AnyKey(stringValue: "gone")!)
            }
        }
        #expect(try Parameters(encoding: ExplicitNil()) == ["gone": nil])
    }

    @Test("an encoding failure is a typed error with the cause underneath")
    func failures() {
        struct Failing: Encodable {
            struct Boom: Error {}
            func encode(to encoder: any Encoder) throws { throw Boom() }
        }
        let error = #expect(throws: SluiceError.self) { try Parameters(encoding: Failing()) }
        #expect(error?.code == .parametersEncodingFailed)
        #expect((error?.underlying as? ForeignError)?.base is Failing.Boom)

        struct Huge: Encodable { var value = UInt64.max }
        let overflow = #expect(throws: SluiceError.self) { try Parameters(encoding: Huge()) }
        #expect(overflow?.code == .parametersEncodingFailed)
    }

    @Test("a Decimal keeps its own digits: a decimal value, not a double")
    func decimal() throws {
        struct Price: Encodable {
            var amount: Decimal
            var list: [Decimal]
        }
        let amount = try #require(Decimal(string: "1.123456"))
        let parameters = try Parameters(encoding: Price(amount: amount, list: [amount]))
        #expect(parameters == ["amount": .decimal(amount), "list": [.decimal(amount)]])
        #expect(parameters["amount"]?.description == "1.123456")
        #expect(parameters["amount"]?.decimalValue == amount)
        #expect(parameters["amount"]?.doubleValue == 1.123456)
        #expect(Parameters.integer(2).decimalValue == 2)
        #expect(Parameters.decimal(1.5) != .double(1.5))
        #expect(Parameters.decimal(.nan) == .decimal(.nan))
        #expect(Set<Parameters>([.decimal(amount), .decimal(amount)]).count == 1)
        // Through Codable (JSONEncoder writes a Decimal as a number with its digits).
        let json = String(decoding: try JSONEncoder().encode(parameters["amount"]!), as: UTF8.self)
        #expect(json == "1.123456")
    }

    @Test("a nil optional in a dictionary is left out by default, kept as null on request; in an array it stays null")
    func nilOptionalsInDictionaries() throws {
        let values: [String: String?] = ["a": "x", "b": nil]
        #expect(try Parameters(encoding: values) == ["a": "x"])
        #expect(try Parameters(encoding: ["outer": values]) == ["outer": ["a": "x"]])
        var keeping = ParametersEncoder()
        keeping.encodesNilOptionals = true
        #expect(try keeping.encode(values) == ["a": "x", "b": nil])
        let doubleOptional: [String: Int??] = ["n": .some(nil), "m": 1]
        #expect(try Parameters(encoding: doubleOptional) == ["m": 1])
        #expect(try Parameters(encoding: ["list": ["a", nil]] as [String: [String?]]) == ["list": ["a", nil]])
    }

    class Animal: Encodable {
        var legs = 4
        var born = Date(timeIntervalSince1970: 0)
        private enum CodingKeys: String, CodingKey { case legs, born }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(legs, forKey: .legs)
            try container.encode(born, forKey: .born)
        }
    }

    final class Dog: Animal {
        var name = "Rex"
        var price = Decimal(string: "19.99")!
        private enum CodingKeys: String, CodingKey { case name, animal, tags }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder(forKey: .animal))
            try super.encode(to: container.superEncoder())
            var tags = container.nestedUnkeyedContainer(forKey: .tags)
            try tags.encode("good")
            var price = tags.superEncoder().singleValueContainer()
            try price.encode(self.price)
        }
    }

    @Test("values written through superEncoder(forKey:), superEncoder() and an unkeyed superEncoder() are kept, strategies applied")
    func superEncoders() throws {
        let parameters = try ParametersEncoder(dateEncoding: .iso8601).encode(Dog())
        let animal: Parameters = ["legs": 4, "born": "1970-01-01T00:00:00Z"]
        #expect(parameters == [
            "name": "Rex", "animal": animal, "super": animal, "tags": ["good", .decimal(Decimal(string: "19.99")!)],
        ])
        #expect(parameters.dictionaryValue?.keys.elementsEqual(["name", "animal", "super", "tags"]) == true)
    }

    @Test("Codable round trip through JSON")
    func codable() throws {
        let parameters: Parameters = ["a": [1, 2.5, "x", true, nil], "b": ["c": "d"]]
        let data = try JSONEncoder().encode(parameters)
        #expect(try JSONDecoder().decode(Parameters.self, from: data) == parameters)
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
