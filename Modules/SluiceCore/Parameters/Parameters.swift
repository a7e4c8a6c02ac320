import Foundation
import OrderedCollections

/// A tree of request parameters: the values a request serializer turns into a query string, a form
/// body, JSON or multipart fields.
///
/// Build one from literals, or from any `Encodable` with ``init(encoding:using:)``:
///
/// ```swift
/// let page: Parameters = ["start": 1, "count": 5, "tags": ["a", "b"], "debug": nil]
/// let fromModel = try Parameters(encoding: Query(start: 1, count: 5))
/// ```
///
/// Dictionaries keep the order their keys were written or encoded in, which serializers may use or
/// ignore (AFNetworking's query-string rules sort keys); two dictionaries with the same keys and
/// values are equal in any order.
public enum Parameters: Sendable {
    /// A string.
    case string(String)
    /// A signed integer.
    case integer(Int)
    /// A floating-point number.
    case double(Double)
    /// A decimal number, written with its own digits (its `description`: `1.123456`, never
    /// `1.1234560000000002`) in query strings, form bodies and JSON. ``ParametersEncoder`` makes one
    /// from a `Decimal`.
    case decimal(Decimal)
    /// A Boolean.
    case bool(Bool)
    /// An explicit null (`NSNull`): in a query string, the bare key.
    case null
    /// Raw bytes.
    case data(Data)
    /// An ordered list.
    case array([Parameters])
    /// An unordered set; serializers that need an order sort it.
    case set(Set<Parameters>)
    /// String keys to values, in insertion order.
    case dictionary(OrderedDictionary<String, Parameters>)
}

// MARK: - Building from ordinary dictionaries

extension Parameters {
    /// A ``dictionary(_:)-enum.case`` from an ordinary `Dictionary`, so building one needs no
    /// `OrderedDictionary` (nor an import of swift-collections). A `Dictionary` has no order of its own:
    /// the keys are sorted, so the same dictionary always serializes the same way (a dictionary literal
    /// typed as `Parameters` keeps the order it is written in instead). Pattern matching on `.dictionary`
    /// still gives the `OrderedDictionary`; ``dictionaryValue`` and the `String` subscript read it.
    ///
    /// ```swift
    /// let fields: [String: Parameters] = ["album": "Holidays", "year": 2024]
    /// let parameters = Parameters.dictionary(fields)   // ["album": "Holidays", "year": 2024]
    /// ```
    public static func dictionary(_ dictionary: [String: Parameters]) -> Parameters {
        var ordered = OrderedDictionary<String, Parameters>(minimumCapacity: dictionary.count)
        for key in dictionary.keys.sorted() { ordered[key] = dictionary[key] }
        return .dictionary(ordered)
    }
}

// MARK: - Access

extension Parameters {
    /// The value for `key` when this is a dictionary, else `nil`.
    public subscript(key: String) -> Parameters? {
        guard case .dictionary(let dictionary) = self else { return nil }
        return dictionary[key]
    }

    /// The element at `index` when this is an array and the index is in range, else `nil`.
    public subscript(index: Int) -> Parameters? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The string, when this is ``string(_:)``.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, when this is ``integer(_:)``.
    public var intValue: Int? { if case .integer(let value) = self { value } else { nil } }
    /// The number, when this is ``double(_:)``, ``integer(_:)`` or ``decimal(_:)`` (the nearest double,
    /// which may lose digits).
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .integer(let value): Double(value)
        // Read from the digits: `NSDecimalNumber.doubleValue` is off by one unit in the last place
        // (1.123456 gives 1.1234560000000002).
        case .decimal(let value): Double(value.description) ?? NSDecimalNumber(decimal: value).doubleValue
        default: nil
        }
    }
    /// The number, when this is ``decimal(_:)`` or ``integer(_:)`` (both exact).
    public var decimalValue: Decimal? {
        switch self {
        case .decimal(let value): value
        case .integer(let value): Decimal(value)
        default: nil
        }
    }
    /// The Boolean, when this is ``bool(_:)``.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The bytes, when this is ``data(_:)``.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The elements, when this is ``array(_:)``.
    public var arrayValue: [Parameters]? { if case .array(let value) = self { value } else { nil } }
    /// The dictionary, when this is ``dictionary(_:)-enum.case``.
    public var dictionaryValue: OrderedDictionary<String, Parameters>? {
        if case .dictionary(let value) = self { value } else { nil }
    }
    /// Whether this is ``null``.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// Whether this is an array, set or dictionary with no elements. Scalars are never empty.
    public var isEmptyContainer: Bool {
        switch self {
        case .array(let value): value.isEmpty
        case .set(let value): value.isEmpty
        case .dictionary(let value): value.isEmpty
        default: false
        }
    }
}

// MARK: - Equality

extension Parameters: Hashable {
    /// Structural equality; dictionaries compare without regard to key order. Integers, doubles and
    /// decimals are different values (`1` is not `1.0`, and `.decimal(1.5)` is not `.double(1.5)`).
    /// NaN equals NaN.
    public static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): a == b || (a.isNaN && b.isNaN)
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.set(let a), .set(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key] == value }
        default: false
        }
    }

    /// Hashes consistently with ``==(_:_:)``: dictionary entries are combined without order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value): hasher.combine(0); hasher.combine(value)
        case .integer(let value): hasher.combine(1); hasher.combine(value)
        case .double(let value): hasher.combine(2); hasher.combine(value.isNaN ? .nan : value)
        case .bool(let value): hasher.combine(3); hasher.combine(value)
        case .null: hasher.combine(4)
        case .data(let value): hasher.combine(5); hasher.combine(value)
        case .array(let value): hasher.combine(6); hasher.combine(value)
        case .set(let value): hasher.combine(7); hasher.combine(value)
        case .decimal(let value): hasher.combine(9); hasher.combine(value.isNaN ? .nan : value)
        case .dictionary(let value):
            hasher.combine(8)
            hasher.combine(value.count)
            // Order-independent: sum of per-entry hashes.
            var sum = 0
            for (key, element) in value {
                var entry = Hasher()
                entry.combine(key)
                entry.combine(element)
                sum = sum &+ entry.finalize()
            }
            hasher.combine(sum)
        }
    }
}

// MARK: - Literals

extension Parameters: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `"text"` → ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `1` → ``integer(_:)``.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// `1.5` → ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` → ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `nil` → ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// `[1, "a"]` → ``array(_:)``.
    public init(arrayLiteral elements: Parameters...) { self = .array(elements) }
    /// `["a": 1]` → ``dictionary(_:)-enum.case`` in the literal's order; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, Parameters)...) {
        var dictionary = OrderedDictionary<String, Parameters>(minimumCapacity: elements.count)
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}

// MARK: - Description

extension Parameters: CustomStringConvertible {
    /// A JSON-like rendering for reading and logs (data shown as its size).
    public var description: String {
        switch self {
        case .string(let value): value.debugDescription
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .decimal(let value): value.description
        case .bool(let value): String(value)
        case .null: "null"
        case .data(let value): "<\(value.count) bytes>"
        case .array(let value): "[" + value.map(\.description).joined(separator: ", ") + "]"
        case .set(let value): "Set([" + value.map(\.description).sorted().joined(separator: ", ") + "])"
        case .dictionary(let value):
            "[" + value.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "]"
        }
    }
}
