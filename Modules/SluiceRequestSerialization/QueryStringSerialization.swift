import Foundation
import SluiceCore

/// AFNetworking's query-string algorithm, byte for byte, with Alamofire's encoding options on top.
///
/// With the default ``Options``:
/// - dictionary keys are sorted ascending; nested dictionaries give `a[b]=c`;
/// - arrays give `a[]=1&a[]=2` in order; sets repeat their key with elements sorted by description;
/// - ``Parameters/null`` gives the bare key; empty containers give nothing;
/// - pairs are joined by `&`, and every field and value is percent-escaped by ``percentEscape(_:)``.
///
/// ```swift
/// QueryStringSerialization.serialize(["b": [1, 2], "a": ["x": "y z"]])   // "a%5Bx%5D=y%20z&b%5B%5D=1&b%5B%5D=2"
/// ```
public enum QueryStringSerialization {
    /// One `field=value` pair before escaping; a `nil` value is a bare field.
    public struct Pair: Sendable, Hashable {
        /// The field, with its brackets (`a[b]`).
        public let field: String
        /// The value's text, or `nil` for a bare field.
        public let value: String?

        /// Creates a pair.
        public init(field: String, value: String?) {
            self.field = field
            self.value = value
        }

        /// `escaped(field)=escaped(value)`, or `escaped(field)` for a bare field.
        public var urlEncoded: String { encoded(spaces: .percentEscaped) }

        /// The pair escaped with the given space encoding.
        public func encoded(spaces: Options.SpaceEncoding) -> String {
            let field = QueryStringSerialization.percentEscape(self.field, spaces: spaces)
            guard let value else { return field }
            return field + "=" + QueryStringSerialization.percentEscape(value, spaces: spaces)
        }
    }

    /// How the tree is written. The defaults are AFNetworking's rules.
    public struct Options: Sendable {
        /// How array elements are keyed.
        public enum ArrayEncoding: Sendable {
            /// `a[]=1&a[]=2`. The default.
            case brackets
            /// `a=1&a=2`.
            case noBrackets
            /// `a[0]=1&a[1]=2`.
            case indexInBrackets
            /// The closure's field for the array's key and the element's index.
            case custom(@Sendable (_ key: String, _ index: Int) -> String)
        }

        /// How Booleans are written.
        public enum BoolEncoding: Sendable {
            /// `1` and `0`, as `NSNumber` writes them. The default.
            case numeric
            /// `true` and `false`.
            case literal
        }

        /// How spaces are escaped.
        public enum SpaceEncoding: Sendable {
            /// `%20`. The default.
            case percentEscaped
            /// `+`, as HTML forms do.
            case plusReplaced
        }

        /// How ``Parameters/null`` values are written.
        public enum NilEncoding: Sendable {
            /// The bare key: `a`. The default.
            case bareKey
            /// Nothing: the pair is left out.
            case dropKey
            /// The key with an empty value: `a=`.
            case dropValue
            /// The text `null`: `a=null`.
            case null
        }

        /// The order of dictionary keys.
        public enum KeyOrdering: Sendable {
            /// Ascending. The default.
            case alphabetized
            /// As the keys were written or declared.
            case insertionOrder
        }

        /// How dictionary keys are written: the same strategies as ``ParametersEncoder``.
        public typealias KeyEncoding = ParametersEncoder.KeyEncoding

        /// Default ``ArrayEncoding/brackets``.
        public var arrayEncoding: ArrayEncoding
        /// Default ``BoolEncoding/numeric``.
        public var boolEncoding: BoolEncoding
        /// Default ``SpaceEncoding/percentEscaped``.
        public var spaceEncoding: SpaceEncoding
        /// Default ``NilEncoding/bareKey``.
        public var nilEncoding: NilEncoding
        /// Default ``KeyOrdering/alphabetized``.
        public var keyOrdering: KeyOrdering
        /// Default `.useDefaultKeys`.
        public var keyEncoding: KeyEncoding

        /// Creates options; every default is AFNetworking's behaviour.
        public init(
            arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric,
            spaceEncoding: SpaceEncoding = .percentEscaped, nilEncoding: NilEncoding = .bareKey,
            keyOrdering: KeyOrdering = .alphabetized, keyEncoding: KeyEncoding = .useDefaultKeys
        ) {
            self.arrayEncoding = arrayEncoding
            self.boolEncoding = boolEncoding
            self.spaceEncoding = spaceEncoding
            self.nilEncoding = nilEncoding
            self.keyOrdering = keyOrdering
            self.keyEncoding = keyEncoding
        }

        /// AFNetworking's rules.
        public static let afNetworking = Options()
    }

    /// The query string for `parameters`: the escaped pairs joined by `&`. A scalar at the top level
    /// gives its escaped text alone; an empty container gives `""`.
    public static func serialize(_ parameters: Parameters, options: Options = .afNetworking) -> String {
        if let text = scalarText(parameters, options: options) {
            return percentEscape(text, spaces: options.spaceEncoding)
        }
        if case .custom = options.arrayEncoding {
            // The closure needs each field unescaped: build the pairs, then escape them.
            return pairs(from: parameters, options: options)
                .map { $0.encoded(spaces: options.spaceEncoding) }.joined(separator: "&")
        }
        var writer = QueryStringWriter(options: options)
        writer.write(parameters, hasKey: false)
        return String(decoding: writer.output, as: UTF8.self)
    }

    /// The pairs for `parameters` in serialization order, not escaped. Top-level scalars give none.
    public static func pairs(from parameters: Parameters, options: Options = .afNetworking) -> [Pair] {
        var result: [Pair] = []
        for leaf in leaves(from: parameters, options: options) {
            guard case .null = leaf.value else {
                result.append(Pair(field: leaf.field, value: scalarText(leaf.value, options: options)))
                continue
            }
            switch options.nilEncoding {
            case .bareKey: result.append(Pair(field: leaf.field, value: nil))
            case .dropKey: break
            case .dropValue: result.append(Pair(field: leaf.field, value: ""))
            case .null: result.append(Pair(field: leaf.field, value: "null"))
            }
        }
        return result
    }

    /// `parameters` as the fields of a form body (a multipart form): the leaves named as in a query
    /// string (`user[name]`, `tags[]`), each value's text as ``scalarText(_:options:)`` writes it, data
    /// as its bytes, `null` empty.
    public static func formFields(from parameters: Parameters, options: Options = .afNetworking) -> [FormField] {
        leaves(from: parameters, options: options).map { leaf in
            let value: Data = switch leaf.value {
            case .data(let data): data
            case .null: Data()
            default: Data((scalarText(leaf.value, options: options) ?? leaf.value.description).utf8)
            }
            return FormField(name: leaf.field, value: value)
        }
    }

    /// The scalar leaves of `parameters` with their flattened field names (`user[name]`, `tags[]`), in
    /// serialization order, values not converted: strings, numbers, Booleans, data and null as they
    /// are. Multipart forms build their fields from these. Top-level scalars give none.
    public static func leaves(from parameters: Parameters, options: Options = .afNetworking)
        -> [(field: String, value: Parameters)]
    {
        var result: [(field: String, value: Parameters)] = []
        collect(key: nil, value: parameters, options: options, into: &result)
        return result
    }

    /// The text a scalar contributes: strings as they are, integers in decimal, doubles in their
    /// shortest form (integral values without a fraction: `2`), decimals with their own digits (their
    /// `description`: `1.123456`), Booleans as `1`/`0` (or
    /// `true`/`false` with ``Options/BoolEncoding/literal``), data as its UTF-8 text or, when not UTF-8,
    /// base64. `nil` for containers and null.
    public static func scalarText(_ value: Parameters, options: Options = .afNetworking) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .double(let double): numberText(double)
        case .decimal(let decimal): decimal.description
        case .bool(let bool):
            switch options.boolEncoding {
            case .numeric: bool ? "1" : "0"
            case .literal: bool ? "true" : "false"
            }
        case .data(let data): String(data: data, encoding: .utf8) ?? data.base64EncodedString()
        case .null, .array, .set, .dictionary: nil
        }
    }

    /// A double as `NSNumber` describes it: integral values up to 10^15 without a fraction, others
    /// in Swift's shortest round-tripping form.
    static func numberText(_ double: Double) -> String {
        if double.isFinite, double == double.rounded(), abs(double) < 1e15 {
            return String(Int64(double))
        }
        return String(double)
    }

    private static func collect(
        key: String?, value: Parameters, options: Options, into result: inout [(field: String, value: Parameters)]
    ) {
        switch value {
        case .dictionary(let dictionary):
            let keys = options.keyOrdering == .alphabetized ? dictionary.keys.sorted() : Array(dictionary.keys)
            for nestedKey in keys {
                let written = options.keyEncoding.apply(to: nestedKey)
                let field = key.map { "\($0)[\(written)]" } ?? written
                collect(key: field, value: dictionary[nestedKey]!, options: options, into: &result)
            }
        case .array(let array):
            let base = key ?? ""
            for (index, element) in array.enumerated() {
                let field: String
                switch options.arrayEncoding {
                case .brackets: field = base + "[]"
                case .noBrackets: field = base
                case .indexInBrackets: field = "\(base)[\(index)]"
                case .custom(let closure): field = closure(base, index)
                }
                collect(key: field, value: element, options: options, into: &result)
            }
        case .set(let set):
            let sorted = set.map { (sortKey: scalarText($0, options: options) ?? $0.description, value: $0) }
                .sorted { $0.sortKey < $1.sortKey }
            for element in sorted { collect(key: key, value: element.value, options: options, into: &result) }
        default:
            if let key { result.append((field: key, value: value)) }
        }
    }

    /// Percent-escapes `string` as AFNetworking does: `A–Z a–z 0–9 - . _ ~ / ?` stay as they are and
    /// every other UTF-8 byte becomes uppercase `%XX`. Whole characters are escaped together, so
    /// composed characters (emoji with modifiers, flags, combining marks) are never split.
    public static func percentEscape(_ string: String) -> String { percentEscape(string, spaces: .percentEscaped) }

    static func percentEscape(_ string: String, spaces: Options.SpaceEncoding) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count * 3)
        appendEscaped(string, spaces: spaces, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the escaped UTF-8 bytes of `string` to `bytes`.
    static func appendEscaped(_ string: String, spaces: Options.SpaceEncoding, to bytes: inout [UInt8]) {
        let plus = spaces == .plusReplaced
        for byte in string.utf8 {
            if unescaped[Int(byte)] {
                bytes.append(byte)
            } else if plus && byte == UInt8(ascii: " ") {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The bytes left as they are, indexed by byte value.
    private static let unescaped: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
            UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}

extension QueryStringSerialization.Options.KeyOrdering: Equatable {}
extension QueryStringSerialization.Options.SpaceEncoding: Equatable {}
