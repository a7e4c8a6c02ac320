import Foundation
import SluiceCore

/// Encodes an `Encodable` value as an `application/x-www-form-urlencoded` body or query, with the
/// options Alamofire's encoder has. With the defaults the output equals AFNetworking's query-string
/// algorithm for the same values.
///
/// ```swift
/// struct Search: Encodable { var query: String; var tags: [String]; var exact: Bool }
/// var encoder = URLEncodedFormEncoder()
/// encoder.options.arrayEncoding = .noBrackets
/// encoder.options.boolEncoding = .literal
/// encoder.options.spaceEncoding = .plusReplaced
/// try encoder.encode(Search(query: "a b", tags: ["x", "y"], exact: true))
/// // "exact=true&query=a+b&tags=x&tags=y"
/// ```
public struct URLEncodedFormEncoder: Sendable {
    /// Array, Boolean, space, null, key order and key encodings. Default: AFNetworking's rules.
    public var options: QueryStringSerialization.Options
    /// How `nil` optionals in keyed containers (properties, and the values of a `[String: T?]`) are
    /// written: `nil` (the default) leaves them out, as Alamofire's encoder does by default; any
    /// ``QueryStringSerialization/Options/NilEncoding`` writes them as that encoding writes nulls. A `nil`
    /// in an array is always a null, written by this encoding when it is set, else by ``options``'
    /// `nilEncoding` (default: the bare key).
    public var nilOptionalEncoding: QueryStringSerialization.Options.NilEncoding?
    /// How dates are written. Default `.deferredToDate` (seconds since 2001 as a number).
    public var dateEncoding: ParametersEncoder.DateEncoding
    /// How data is written. Default `.base64`.
    public var dataEncoding: ParametersEncoder.DataEncoding

    /// Creates an encoder; every default gives AFNetworking's output.
    public init(
        options: QueryStringSerialization.Options = .afNetworking,
        nilOptionalEncoding: QueryStringSerialization.Options.NilEncoding? = nil,
        dateEncoding: ParametersEncoder.DateEncoding = .deferredToDate,
        dataEncoding: ParametersEncoder.DataEncoding = .base64
    ) {
        self.options = options
        self.nilOptionalEncoding = nilOptionalEncoding
        self.dateEncoding = dateEncoding
        self.dataEncoding = dataEncoding
    }

    /// The form text of `value`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/formEncodingFailed`` when the value's top
    ///   level is not keyed (a struct, class or dictionary) or its encoding fails (cause underneath).
    public func encode(_ value: some Encodable) throws(SluiceError) -> String {
        var encoder = ParametersEncoder(dateEncoding: dateEncoding, dataEncoding: dataEncoding)
        encoder.encodesNilOptionals = nilOptionalEncoding != nil
        let parameters: Parameters
        do {
            parameters = try encoder.encode(value)
        } catch {
            throw SluiceError(.formEncodingFailed, "cannot form-encode \(type(of: value)): \(error.message)", underlying: error)
        }
        guard case .dictionary = parameters else {
            throw SluiceError(
                .formEncodingFailed, "cannot form-encode \(type(of: value)): the top level must be keyed, not \(parameters)")
        }
        var options = self.options
        if let nilOptionalEncoding { options.nilEncoding = nilOptionalEncoding }
        return QueryStringSerialization.serialize(parameters, options: options)
    }

    /// The form text of `value` as UTF-8 bytes, for a request body.
    ///
    /// - Throws: As ``encode(_:)``.
    public func encodeData(_ value: some Encodable) throws(SluiceError) -> Data {
        Data(try encode(value).utf8)
    }
}
