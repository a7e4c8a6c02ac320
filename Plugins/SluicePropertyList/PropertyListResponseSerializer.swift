import Foundation
import SluiceCore
import SluiceResponseSerialization

/// Validates a response and reads a property-list body (XML, binary or OpenStep, detected) into
/// ``Parameters``, as AFNetworking's `AFPropertyListResponseSerializer` does. Dates become ISO 8601 strings.
///
/// Bodies are read by Sluice's own bounded parsers, not by Foundation's `PropertyListSerialization`
/// (which crashes on some hostile binary plists on Linux): a body that is not a property list is a typed
/// error, never a crash. Sets, UIDs and nulls in binary plists, duplicate dictionary keys, reference
/// cycles, non-finite dates, and nesting deeper than 512 are refused; see ``serialize(request:response:body:)``.
///
/// Accepts `application/x-plist`; a `204`, `205`, `HEAD` or empty body gives `nil` and no error (for a
/// `204`, `205` or `HEAD` whatever its `Content-Type`: only its status is checked).
public struct PropertyListResponseSerializer: ResponseSerializer {
    /// The validation rules. Default: 200–299, `application/x-plist`.
    public var validation: HTTPResponseSerializer

    /// Creates a serializer.
    public init(validation: HTTPResponseSerializer = HTTPResponseSerializer(acceptableContentTypes: [MediaType("application/x-plist")!])) {
        self.validation = validation
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and reads.
    ///
    /// Strings, data, Booleans and reals keep their types; integers are ``Parameters/integer(_:)``, except
    /// those above `Int.max` (up to `UInt64.max`), which are ``Parameters/double(_:)`` as in JSON; dates
    /// are ISO 8601 strings; dictionaries have their keys sorted. OpenStep plists hold strings only.
    ///
    /// - Throws: The validation errors, or ``SluiceError/Code/propertyListInvalidData`` for a body that is
    ///   not a property list Sluice reads (JSON, for example), with the reason and byte offset in its
    ///   message: malformed or truncated bytes, a binary plist with a set, a UID, a null, a reference cycle
    ///   or a non-string key, a duplicate key, a non-finite date, an integer outside the 64-bit range,
    ///   nesting deeper than 512, or more values than `max(4096, 2 × the body's size)`.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        try validation.validate(request: request, response: response, body: body)
        if HTTPResponseSerializer.isNoContent(request: request, response: response) { return nil }
        guard let body, !body.isEmpty else { return nil }
        do {
            return try PropertyListConversion.parameters(from: try PropertyListParser.parse(body))
        } catch {
            var error = error
            error.request = request
            error.response = response
            error.setBody(body)
            throw error
        }
    }

    /// A `Decodable` serializer reading property lists with `PropertyListDecoder`.
    ///
    /// Foundation never reads the body itself: Sluice's parser reads it first (refusing what
    /// ``serialize(request:response:body:)`` refuses), `PropertyListSerialization` writes what it read as
    /// a binary plist, and `PropertyListDecoder` decodes that. OpenStep bodies decode too.
    ///
    /// - Returns: A serializer accepting `application/x-plist` with status 200–299. It throws
    ///   ``SluiceError/Code/decodingFailed`` whose ``SluiceError/underlying`` is a `ForeignError` holding
    ///   the parser's ``SluiceError`` (code ``SluiceError/Code/propertyListInvalidData``) for a body the
    ///   parser refuses, or the decoder's error.
    public static func decodable<Value: Decodable & Sendable>(_ type: Value.Type) -> DecodableResponseSerializer<Value> {
        DecodableResponseSerializer(
            validation: HTTPResponseSerializer(acceptableContentTypes: [MediaType("application/x-plist")!]),
            decode: { body in
                let object = PropertyListConversion.foundationObject(from: try PropertyListParser.parse(body))
                let canonical = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
                return try PropertyListDecoder().decode(Value.self, from: canonical)
            })
    }
}
