import Foundation
import SluiceCore

/// AFNetworking's query-string algorithm, byte for byte.
///
/// - Dictionary keys are sorted ascending; nested dictionaries give `a[b]=c`.
/// - Arrays give `a[]=1&a[]=2` in order; sets repeat their key with elements sorted by description.
/// - ``Parameters/null`` gives the bare key; empty containers give nothing.
/// - Pairs are joined by `&`.
/// - Every field and value is percent-escaped by ``percentEscape(_:)``.
///
/// ```swift
/// QueryStringSerialization.serialize(["b": [1, 2], "a": ["x": "y z"]])   // "a%5Bx%5D=y%20z&b%5B%5D=1&b%5B%5D=2"
/// ```
public enum QueryStringSerialization {
    /// One `field=value` pair before escaping; a `nil` value is a bare field.
    public struct Pair: Sendable, Hashable {
        /// The field, with its brackets (`a[b]`).
        public let field: String
        /// The value's text, or `nil` for ``Parameters/null``.
        public let value: String?

        /// Creates a pair.
        public init(field: String, value: String?) {
            self.field = field
            self.value = value
        }

        /// `escaped(field)=escaped(value)`, or `escaped(field)` for a bare field.
        public var urlEncoded: String {
            guard let value else { return QueryStringSerialization.percentEscape(field) }
            return QueryStringSerialization.percentEscape(field) + "=" + QueryStringSerialization.percentEscape(value)
        }
    }

    /// The query string for `parameters`: the escaped pairs joined by `&`. A scalar at the top level
    /// gives its escaped text alone; an empty container gives `""`.
    public static func serialize(_ parameters: Parameters) -> String {
        if let text = scalarText(parameters) {
            return percentEscape(text)
        }
        return pairs(from: parameters).map(\.urlEncoded).joined(separator: "&")
    }

    /// The pairs for `parameters` in serialization order, not escaped. Top-level scalars give none.
    public static func pairs(from parameters: Parameters) -> [Pair] {
        var result: [Pair] = []
        collect(key: nil, value: parameters, into: &result)
        return result
    }

    /// The text a scalar contributes to a query: strings as they are, integers in decimal, doubles in
    /// their shortest form (`1.5`; integral values without a fraction, `2`), Booleans as `1` and `0`
    /// (as `NSNumber` writes them), data as its UTF-8 text or, when not UTF-8, base64. `nil` for
    /// containers and null.
    public static func scalarText(_ value: Parameters) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .double(let double):
            if double.isFinite, double == double.rounded(), abs(double) < 1e15 {
                String(Int64(double))
            } else {
                String(double)
            }
        case .bool(let bool): bool ? "1" : "0"
        case .data(let data): String(data: data, encoding: .utf8) ?? data.base64EncodedString()
        case .null, .array, .set, .dictionary: nil
        }
    }

    private static func collect(key: String?, value: Parameters, into result: inout [Pair]) {
        switch value {
        case .dictionary(let dictionary):
            for nestedKey in dictionary.keys.sorted() {
                let field = key.map { "\($0)[\(nestedKey)]" } ?? nestedKey
                collect(key: field, value: dictionary[nestedKey]!, into: &result)
            }
        case .array(let array):
            let field = (key ?? "") + "[]"
            for element in array { collect(key: field, value: element, into: &result) }
        case .set(let set):
            for element in set.sorted(by: { description(of: $0) < description(of: $1) }) {
                collect(key: key, value: element, into: &result)
            }
        case .null:
            if let key { result.append(Pair(field: key, value: nil)) }
        default:
            if let key { result.append(Pair(field: key, value: scalarText(value))) }
        }
    }

    /// The sort key of a set element: its query text, or its description for containers.
    private static func description(of value: Parameters) -> String {
        scalarText(value) ?? value.description
    }

    /// Percent-escapes `string` as AFNetworking does: `A–Z a–z 0–9 - . _ ~ / ?` stay as they are and
    /// every other UTF-8 byte becomes uppercase `%XX`. Whole characters are escaped together, so
    /// composed characters (emoji with modifiers, flags, combining marks) are never split.
    public static func percentEscape(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count * 3)
        for byte in string.utf8 {
            if isUnescaped(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnescaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
            UInt8(ascii: "?"):
            true
        default:
            false
        }
    }
}
