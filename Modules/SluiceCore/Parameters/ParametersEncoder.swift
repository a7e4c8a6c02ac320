import Foundation

/// Turns any `Encodable` value into ``Parameters``, with the strategies users of `JSONEncoder` and
/// Alamofire's form encoder expect.
///
/// Keyed containers become dictionaries in declaration order, unkeyed containers arrays, and single
/// values scalars. A `nil` optional in a keyed container is left out by default, however it is written:
/// with `encodeIfPresent` (what synthesized conformances do) or with `encode` (what a dictionary of
/// optionals, `[String: T?]`, does); ``encodesNilOptionals`` keeps it as ``Parameters/null``. This
/// follows Alamofire's `URLEncodedFormEncoder`, whose default `NilEncoding.dropKey` leaves nil values
/// out; AFNetworking has no encoder (its dictionaries cannot hold nil, and the `NSNull` they hold
/// instead is what ``Parameters/null`` is, written as a bare key by default; see
/// `QueryStringSerialization.Options.nilEncoding`). `JSONEncoder` differs for dictionaries: it writes
/// `null` for a `[String: T?]`'s nil values. In an unkeyed container (an array) a `nil` stays
/// ``Parameters/null``, so the other elements keep their positions; an explicit `encodeNil` gives
/// ``Parameters/null`` too.
///
/// What a class writes through a super encoder is kept, as `JSONEncoder` keeps it: `superEncoder(forKey:)`
/// under that key, `superEncoder()` under `super`, an unkeyed container's `superEncoder()` as its next
/// element. The strategies apply to values encoded through the super encoder's containers
/// (`superEncoder().singleValueContainer().encode(date)`); a value that encodes itself on it
/// (`date.encode(to: superEncoder())`) uses its own conformance instead (a date its reference-date
/// seconds, a `Decimal` its internal fields), as it would with any encoder. `URL` becomes its absolute string,
/// `Decimal` a ``Parameters/decimal(_:)`` (written with its own digits, as Alamofire's form encoder
/// writes it: `1.123456` stays `1.123456`), and `Parameters` itself is taken as it is.
///
/// ```swift
/// struct Query: Encodable { var pageSize: Int; var since: Date }
/// var encoder = ParametersEncoder()
/// encoder.keyEncoding = .convertToSnakeCase
/// encoder.dateEncoding = .iso8601
/// let parameters = try encoder.encode(Query(pageSize: 20, since: .now))   // ["page_size": 20, "since": "2026-…"]
/// ```
public struct ParametersEncoder: Sendable {
    /// How `Date` values are encoded.
    public enum DateEncoding: Sendable {
        /// The date's own `Encodable` conformance: seconds since 2001-01-01 as a double. The default.
        case deferredToDate
        /// Seconds since 1970-01-01 as a double.
        case secondsSince1970
        /// Milliseconds since 1970-01-01 as a double.
        case millisecondsSince1970
        /// An ISO 8601 string with time zone, such as `2026-11-21T08:00:00Z`.
        case iso8601
        /// A closure's result.
        case custom(@Sendable (Date) throws -> Parameters)
    }

    /// How `Data` values are encoded.
    public enum DataEncoding: Sendable {
        /// ``Parameters/data(_:)``: the bytes themselves. The default.
        case raw
        /// A base64 string.
        case base64
        /// Data's own `Encodable` conformance: an array of byte values.
        case deferredToData
        /// A closure's result.
        case custom(@Sendable (Data) throws -> Parameters)
    }

    /// How keyed containers' keys are written.
    public enum KeyEncoding: Sendable {
        /// Keys as declared. The default.
        case useDefaultKeys
        /// `pageSize` → `page_size`, by the same rules as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`.
        case convertToSnakeCase
        /// `pageSize` → `page-size`.
        case convertToKebabCase
        /// A closure's result.
        case custom(@Sendable (String) -> String)

        /// `key` written by this strategy.
        public func apply(to key: String) -> String {
            switch self {
            case .useDefaultKeys: key
            case .convertToSnakeCase: KeyCase.convert(key, separator: "_")
            case .convertToKebabCase: KeyCase.convert(key, separator: "-")
            case .custom(let closure): closure(key)
            }
        }
    }

    /// How `Date` values are encoded. Default ``DateEncoding/deferredToDate``.
    public var dateEncoding: DateEncoding
    /// How `Data` values are encoded. Default ``DataEncoding/raw``.
    public var dataEncoding: DataEncoding
    /// How keys are written. Default ``KeyEncoding/useDefaultKeys``.
    public var keyEncoding: KeyEncoding
    /// Whether `nil` optionals in keyed containers (written with `encodeIfPresent`, as synthesized
    /// conformances do, or with `encode`, as a `[String: T?]` does) become ``Parameters/null`` instead
    /// of being left out. Default `false`: left out, as Alamofire's form encoder does by default.
    public var encodesNilOptionals: Bool = false

    /// Creates an encoder with the given strategies (defaults: deferred dates, raw data, keys as declared).
    public init(
        dateEncoding: DateEncoding = .deferredToDate, dataEncoding: DataEncoding = .raw,
        keyEncoding: KeyEncoding = .useDefaultKeys
    ) {
        self.dateEncoding = dateEncoding
        self.dataEncoding = dataEncoding
        self.keyEncoding = keyEncoding
    }

    /// Encodes `value`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/parametersEncodingFailed`` when the value's
    ///   `encode(to:)` or a custom strategy throws (that error is the underlying error), when an
    ///   unsigned integer is larger than `Int.max`, or when a value encodes nothing at the top level.
    public func encode(_ value: some Encodable) throws(SluiceError) -> Parameters {
        do {
            return try ParametersEncodingState(options: self).encodeTopLevel(value)
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(
                .parametersEncodingFailed, "cannot encode \(type(of: value)) as parameters: \(error)",
                underlying: ForeignError(error))
        }
    }
}

extension Parameters {
    /// Creates parameters from an `Encodable` value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - encoder: The strategies to use. Default: a ``ParametersEncoder`` with its defaults.
    /// - Throws: As ``ParametersEncoder/encode(_:)``.
    public init(encoding value: some Encodable, using encoder: ParametersEncoder = ParametersEncoder())
        throws(SluiceError)
    {
        self = try encoder.encode(value)
    }
}
