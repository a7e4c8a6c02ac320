import Foundation
import OrderedCollections
import SluiceCore

/// A Swift `Encodable` value written in vector JSON, for cases that go through ``ParametersEncoder``
/// the way a caller's model does (`{"$encodable": ...}` in ``VectorParameters``).
///
/// Inside it, plain JSON maps to Swift values: an object is a keyed container in its order (use
/// `{"$ordered": [["key", value], ...]}` when the order matters), an array an unkeyed container, and
/// `null` a nil optional, encoded as a `[String: T?]` or `[T?]` encodes one. One-key objects say what
/// JSON cannot: `{"$decimal": "1.123456"}` is a `Decimal` made from that text; `{"$double": 1}` a
/// `Double`; `{"$superEncoder": value}` as an object entry is `value` written through the container's
/// `superEncoder(forKey:)` for that entry's key, as an array element through the unkeyed container's
/// `superEncoder()`; and an object entry keyed `"$super"` is written through the keyed container's
/// `superEncoder()` (the key `super`).
public indirect enum VectorEncodable: Encodable, Sendable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int)
    /// A double.
    case double(Double)
    /// A Boolean.
    case bool(Bool)
    /// A `Decimal`.
    case decimal(Decimal)
    /// A nil optional.
    case none
    /// An unkeyed container.
    case array([VectorEncodable])
    /// A keyed container, in order.
    case object(OrderedDictionary<String, VectorEncodable>)
    /// A value written through a super encoder.
    case superEncoded(VectorEncodable)

    /// Reads vector JSON (already decoded as plain ``Parameters``).
    ///
    /// - Throws: ``ConformanceError`` for a `$decimal` that is not decimal text, or a value with no
    ///   Swift counterpart here (data, a set).
    public init(_ plain: Parameters) throws {
        switch plain {
        case .string(let value): self = .string(value)
        case .integer(let value): self = .integer(value)
        case .double(let value): self = .double(value)
        case .bool(let value): self = .bool(value)
        case .null: self = .none
        case .array(let elements): self = .array(try elements.map(VectorEncodable.init))
        case .dictionary(let dictionary):
            if dictionary.count == 1, let (key, inner) = dictionary.elements.first, let special = try Self.special(key, inner) {
                self = special
            } else {
                self = .object(try dictionary.mapValues(VectorEncodable.init))
            }
        default:
            throw ConformanceError("$encodable cannot hold \(plain)")
        }
    }

    private static func special(_ key: String, _ inner: Parameters) throws -> VectorEncodable? {
        switch key {
        case "$decimal":
            guard case .string(let text) = inner, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw ConformanceError("$decimal must hold decimal text")
            }
            return .decimal(decimal)
        case "$double":
            guard let number = inner.doubleValue else { throw ConformanceError("$double must hold a number") }
            return .double(number)
        case "$superEncoder":
            return .superEncoded(try VectorEncodable(inner))
        case "$ordered":
            guard case .array(let entries) = inner else { throw ConformanceError("$ordered holds [key, value] pairs") }
            var ordered = OrderedDictionary<String, VectorEncodable>()
            for entry in entries {
                guard case .array(let pair) = entry, pair.count == 2, case .string(let key) = pair[0] else {
                    throw ConformanceError("$ordered holds [key, value] pairs")
                }
                ordered[key] = try VectorEncodable(pair[1])
            }
            return .object(ordered)
        default:
            return nil
        }
    }

    /// Encodes the value as described in the type's documentation.
    ///
    /// - Throws: What `encoder`'s containers throw.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            try encoder.encodeSingleValue(value)
        case .integer(let value):
            try encoder.encodeSingleValue(value)
        case .double(let value):
            try encoder.encodeSingleValue(value)
        case .bool(let value):
            try encoder.encodeSingleValue(value)
        case .decimal(let value):
            try encoder.encodeSingleValue(value)
        case .none:
            try Optional<VectorEncodable>.none.encode(to: encoder)
        case .superEncoded(let inner):
            try inner.encode(to: encoder)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                switch element {
                case .superEncoded(let inner): try inner.encode(to: container.superEncoder())
                case .none: try container.encode(Optional<VectorEncodable>.none)
                default: try container.encode(element)
                }
            }
        case .object(let entries):
            var container = encoder.container(keyedBy: VectorCodingKey.self)
            for (key, value) in entries {
                let codingKey = VectorCodingKey(stringValue: key)
                switch value {
                case _ where key == "$super": try value.unwrappingSuper.encode(to: container.superEncoder())
                case .superEncoded(let inner): try inner.encode(to: container.superEncoder(forKey: codingKey))
                case .none: try container.encode(Optional<VectorEncodable>.none, forKey: codingKey)
                default: try container.encode(value, forKey: codingKey)
                }
            }
        }
    }

    private var unwrappingSuper: VectorEncodable {
        if case .superEncoded(let inner) = self { inner } else { self }
    }
}

/// A coding key for any string.
private struct VectorCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
