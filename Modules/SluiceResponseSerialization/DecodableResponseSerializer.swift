import Foundation
import SluiceCore

/// A value for responses that have no body: what ``DecodableResponseSerializer`` returns for an empty
/// body, a `204`/`205` or a `HEAD` when it was asked to decode `Empty`.
public struct Empty: Decodable, Sendable, Equatable {
    /// The empty value.
    public static let value = Empty()
    /// Creates the empty value.
    public init() {}
}

/// Validates a response and decodes its body as `Value` with the caller's `JSONDecoder`, or with a
/// decoder the registry holds for the response's media type.
///
/// Empty bodies (empty or whitespace, `204`, `205`, `HEAD`) give ``Empty`` when `Value` is ``Empty``, and
/// otherwise the error ``SluiceError/Code/emptyResponse``.
public struct DecodableResponseSerializer<Value: Decodable & Sendable>: ResponseSerializer {
    /// The validation rules. Default: 200–299, the JSON content types.
    public var validation: HTTPResponseSerializer
    /// Decodes bodies. Default: a plain `JSONDecoder`.
    public let decode: @Sendable (Data) throws -> Value

    /// Decodes with `decoder`.
    ///
    /// - Parameters:
    ///   - decoder: The caller's decoder, with its strategies. Default `JSONDecoder()`.
    ///   - acceptableContentTypes: Default ``JSONResponseSerializer/defaultContentTypes``.
    public init(
        decoder: JSONDecoder = JSONDecoder(), acceptableStatusCodes: IndexSet = IndexSet(200..<300),
        acceptableContentTypes: [MediaType] = JSONResponseSerializer.defaultContentTypes
    ) {
        self.validation = HTTPResponseSerializer(
            acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.decode = { try decoder.decode(Value.self, from: $0) }
    }

    /// Decodes with any function (a property-list decoder, a plugin's).
    public init(validation: HTTPResponseSerializer, decode: @escaping @Sendable (Data) throws -> Value) {
        self.validation = validation
        self.decode = decode
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and decodes.
    ///
    /// - Throws: ``SluiceError`` with the validation codes, ``SluiceError/Code/emptyResponse``, or
    ///   ``SluiceError/Code/decodingFailed`` with the decoder's error underneath.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Value {
        try validation.validate(request: request, response: response, body: body)
        let isEmpty = response.statusCode == 204 || response.statusCode == 205 || request?.method == .head
            || (body ?? Data()).allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if isEmpty {
            if let empty = Empty.value as? Value { return empty }
            throw SluiceError(
                .emptyResponse, "expected a \(Value.self) but the response had no body", request: request,
                response: response, body: body)
        }
        do {
            return try decode(body!)
        } catch {
            throw SluiceError(
                .decodingFailed, "cannot decode \(Value.self): \(error)", request: request, response: response, body: body,
                underlying: ForeignError(error))
        }
    }
}
