import Foundation
import SluiceCore
import SluiceResponseSerialization

/// Validates a response and reads a property-list body (XML, binary or OpenStep, detected) into
/// ``Parameters``, as AFNetworking's `AFPropertyListResponseSerializer` does. Dates become ISO 8601 strings.
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
    /// - Throws: The validation errors, or ``SluiceError/Code/propertyListInvalidData`` for a body that is
    ///   not a property list (JSON, for example).
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        try validation.validate(request: request, response: response, body: body)
        if HTTPResponseSerializer.isNoContent(request: request, response: response) { return nil }
        guard let body, !body.isEmpty else { return nil }
        guard let format = PropertyListFormatDetector.format(of: body), format != .openStep || body.first == UInt8(ascii: "(") || !Self.looksLikeJSON(body) else {
            throw SluiceError(.propertyListInvalidData, "the body is not a property list", request: request, response: response, body: body)
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: body, options: [], format: nil)
        } catch {
            throw SluiceError(.propertyListInvalidData, "the body is not a valid \(format) property list", request: request,
                              response: response, body: body, underlying: ForeignError(error))
        }
        do {
            return try PropertyListConversion.parameters(from: object)
        } catch {
            var error = error
            error.response = response
            error.setBody(body)
            throw error
        }
    }

    /// A `Decodable` serializer reading property lists with `PropertyListDecoder`.
    public static func decodable<Value: Decodable & Sendable>(_ type: Value.Type) -> DecodableResponseSerializer<Value> {
        DecodableResponseSerializer(
            validation: HTTPResponseSerializer(acceptableContentTypes: [MediaType("application/x-plist")!]),
            decode: { try PropertyListDecoder().decode(Value.self, from: $0) })
    }

    /// JSON objects look like OpenStep dictionaries to a format sniffer; `"key":` gives them away.
    private static func looksLikeJSON(_ body: Data) -> Bool {
        guard let text = String(data: body.prefix(4096), encoding: .utf8) else { return false }
        return text.contains("\":") || text.contains("\" :")
    }
}
