import Foundation

/// A property list as Sluice's own parsers (``PropertyListParser``) read it: a tree of plain values that
/// holds no Foundation object and cannot refer to itself.
///
/// - Integers are ``integer(_:)`` from `Int64.min` to `Int64.max`; only the positive values above
///   `Int64.max` (binary plists write them as 16-byte integers, XML as digits) are
///   ``unsignedInteger(_:)``, so each number has one spelling.
/// - Dates are seconds since 2001-01-01T00:00:00Z (Foundation's reference date), always finite.
/// - Dictionaries keep their entries in document order; keys are unique (the parsers refuse
///   duplicates, compared as Swift strings, that is up to canonical equivalence).
/// - There are no sets, UIDs or nulls: the parsers refuse them.
enum PropertyListValue: Sendable, Equatable {
    /// A string.
    case string(String)
    /// An integer that fits in `Int64`.
    case integer(Int64)
    /// An integer above `Int64.max`.
    case unsignedInteger(UInt64)
    /// A floating-point number (a 4-byte binary real is widened); may be NaN or infinite.
    case real(Double)
    /// A Boolean.
    case bool(Bool)
    /// A date, as finite seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    /// Raw bytes.
    case data(Data)
    /// An ordered list.
    case array([PropertyListValue])
    /// String keys to values, in document order, keys unique.
    case dictionary([Entry])

    /// One key and its value in a ``PropertyListValue/dictionary(_:)``.
    struct Entry: Sendable, Equatable {
        /// The key.
        var key: String
        /// The value.
        var value: PropertyListValue
    }

    /// What the value is, for error messages: `string`, `integer`, `dictionary`…
    var kind: String {
        switch self {
        case .string: "string"
        case .integer, .unsignedInteger: "integer"
        case .real: "real"
        case .bool: "Boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}
