import Foundation
import OrderedCollections

extension Parameters: Codable {
    /// Encodes the tree as the encoder's native values: a dictionary as a keyed container in its
    /// order, an array as an unkeyed container, a set as an unkeyed container sorted by description,
    /// ``null`` as nil, data through `Data`'s own encoding (base64 in `JSONEncoder` by default), and a
    /// decimal as a `Decimal` (a number with its digits in `JSONEncoder`).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            try encoder.encodeSingleValue(value)
        case .integer(let value):
            try encoder.encodeSingleValue(value)
        case .double(let value):
            try encoder.encodeSingleValue(value)
        case .decimal(let value):
            try encoder.encodeSingleValue(value)
        case .bool(let value):
            try encoder.encodeSingleValue(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .data(let value):
            try encoder.encodeSingleValue(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .set(let values):
            var container = encoder.unkeyedContainer()
            for value in values.sorted(by: { $0.description < $1.description }) { try container.encode(value) }
        case .dictionary(let values):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in values { try container.encode(value, forKey: AnyCodingKey(key)) }
        }
    }

    /// Decodes nil as ``null``, then the first of Bool, Int, Double, String that fits, then an array
    /// or a dictionary.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of these.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? container.decode(Int.self) {
                self = .integer(value)
                return
            }
            if let value = try? container.decode(Double.self) {
                // A whole number Int holds is an integer, however it was written: `JSONDecoder` reads some
                // such texts as Int ("15.0", "2.2e16") and not others (a long fraction that rounds to a
                // whole double), so without this the same value came back as either case.
                if let integer = Int(exactly: value) {
                    self = .integer(integer)
                } else {
                    self = .double(value)
                }
                return
            }
            if let value = try? container.decode(String.self) {
                self = .string(value)
                return
            }
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [Parameters] = []
            while !container.isAtEnd { values.append(try container.decode(Parameters.self)) }
            self = .array(values)
            return
        }
        if let container = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var values = OrderedDictionary<String, Parameters>()
            for key in container.allKeys { values[key.stringValue] = try container.decode(Parameters.self, forKey: key) }
            self = .dictionary(values)
            return
        }
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "not a value Parameters can hold"))
    }
}

/// A coding key made from any string or integer.
struct AnyCodingKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }
    init(stringValue: String) { self.init(stringValue) }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
