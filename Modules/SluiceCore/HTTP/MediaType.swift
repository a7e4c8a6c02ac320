import Foundation

/// A media type such as `application/json; charset=utf-8`, parsed by the rules of RFC 9110.
///
/// Type and subtype are stored in lowercase; parameter names are lowercased and parameter values keep
/// their case (quoted values are unquoted). A media type can also be a pattern: `*/*`, `text/*`, or a
/// structured-syntax suffix pattern such as `*/*+json` or `application/*+xml`.
///
/// ```swift
/// let type = try MediaType(parsing: "Application/Problem+JSON; charset=UTF-8")
/// type.essence          // "application/problem+json"
/// type.suffix           // "json"
/// type.charset          // "UTF-8"
/// MediaType("text/*")!.matches(type)   // false
/// ```
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The top-level type, lowercase (`application`), or `*`.
    public let type: String
    /// The subtype, lowercase (`problem+json`), `*`, or a suffix pattern such as `*+json`.
    public let subtype: String
    /// The parameters in order, names lowercase, values unquoted.
    public let parameters: [(name: String, value: String)]

    /// Creates a media type from its parts. Type and subtype are lowercased.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidMediaType`` when the type or subtype
    ///   is not a token (or `*`), or a parameter name is not a token.
    public init(type: String, subtype: String, parameters: [(name: String, value: String)] = [])
        throws(SluiceError)
    {
        guard HTTPToken.isToken(type), HTTPToken.isToken(subtype) else {
            throw SluiceError(.invalidMediaType, "invalid media type \"\(type)/\(subtype)\"")
        }
        for parameter in parameters where !HTTPToken.isToken(parameter.name) {
            throw SluiceError(.invalidMediaType, "invalid media type parameter name \(parameter.name.debugDescription)")
        }
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters.map { (name: $0.name.lowercased(), value: $0.value) }
    }

    /// A media type from parts the parser checked and lowercased already.
    init(checkedType type: String, subtype: String, parameters: [(name: String, value: String)]) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
    }

    /// Parses a media type such as a `Content-Type` value.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidMediaType`` when `string` is not
    ///   `type/subtype` followed by optional `; name=value` parameters.
    public init(parsing string: some StringProtocol) throws(SluiceError) {
        self = try MediaTypeParser.parse(Substring(string))
    }

    /// Parses a media type, returning `nil` where ``init(parsing:)`` would throw.
    public init?(_ string: some StringProtocol) {
        guard let parsed = try? MediaType(parsing: string) else { return nil }
        self = parsed
    }

    /// `type/subtype` without parameters.
    public var essence: String { "\(type)/\(subtype)" }

    /// The structured-syntax suffix: what follows the last `+` in the subtype (`json` for
    /// `application/problem+json`), or `nil` when there is none.
    public var suffix: String? {
        guard let plus = subtype.lastIndex(of: "+") else { return nil }
        let suffix = subtype[subtype.index(after: plus)...]
        return suffix.isEmpty ? nil : String(suffix)
    }

    /// Whether this is a pattern rather than one concrete type: `*` as type or subtype, or a subtype
    /// of the form `*+suffix`.
    public var isWildcard: Bool { type == "*" || subtype == "*" || subtype.hasPrefix("*+") }

    /// The value of a parameter (name compared case-insensitively), or `nil`.
    public func parameter(_ name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// The `charset` parameter, or `nil`.
    public var charset: String? { parameter("charset") }

    /// Whether `other` falls under this type, taking this one as a pattern: `*/*` accepts everything,
    /// `text/*` every `text` subtype, `*/*+json` and `application/*+json` any subtype with the `json`
    /// suffix, and a concrete type only itself. Parameters are ignored.
    public func matches(_ other: MediaType) -> Bool {
        guard type == "*" || type == other.type else { return false }
        if subtype == "*" || subtype == other.subtype { return true }
        if subtype.hasPrefix("*+") {
            return other.suffix == String(subtype.dropFirst(2))
        }
        return false
    }

    /// Equal when type, subtype and parameters (in order, values compared exactly) are equal.
    public static func == (lhs: MediaType, rhs: MediaType) -> Bool {
        lhs.type == rhs.type && lhs.subtype == rhs.subtype
            && lhs.parameters.count == rhs.parameters.count
            && zip(lhs.parameters, rhs.parameters).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(subtype)
        for parameter in parameters {
            hasher.combine(parameter.name)
            hasher.combine(parameter.value)
        }
    }

    /// The canonical form: `type/subtype` then `; name=value` for each parameter, quoting values that
    /// are not tokens.
    public var description: String {
        var text = essence
        for parameter in parameters {
            text += "; \(parameter.name)="
            if HTTPToken.isToken(parameter.value) {
                text += parameter.value
            } else {
                let escaped = parameter.value.replacingASCII { byte in
                    switch byte {
                    case UInt8(ascii: "\\"): #"\\"#
                    case UInt8(ascii: "\""): #"\""#
                    default: nil
                    }
                }
                text += "\"\(escaped)\""
            }
        }
        return text
    }

    // MARK: Common types

    /// `application/json`
    public static let json = MediaType(known: "application", "json")
    /// `application/xml`
    public static let xml = MediaType(known: "application", "xml")
    /// `text/plain`
    public static let plainText = MediaType(known: "text", "plain")
    /// `text/html`
    public static let html = MediaType(known: "text", "html")
    /// `application/octet-stream`
    public static let octetStream = MediaType(known: "application", "octet-stream")
    /// `application/x-www-form-urlencoded`
    public static let formURLEncoded = MediaType(known: "application", "x-www-form-urlencoded")
    /// `multipart/form-data`
    public static let multipartFormData = MediaType(known: "multipart", "form-data")
    /// `*/*`: every media type.
    public static let any = MediaType(known: "*", "*")

    private init(known type: String, _ subtype: String) {
        self.type = type
        self.subtype = subtype
        self.parameters = []
    }
}
