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
    /// When set, bodies of a media type a registered plugin serializes are decoded through that plugin:
    /// its output is re-encoded as JSON and decoded as `Value` with ``decode``.
    public let registry: SerializerRegistry?

    /// Decodes with `decoder`.
    ///
    /// - Parameters:
    ///   - decoder: The caller's decoder, with its strategies. Default `JSONDecoder()`.
    ///   - acceptableStatusCodes: The statuses accepted; any other fails with
    ///     ``SluiceError/Code/unacceptableStatusCode``. Default 200–299.
    ///   - acceptableContentTypes: The media types accepted; any other fails with
    ///     ``SluiceError/Code/unacceptableContentType``. Default
    ///     ``JSONResponseSerializer/defaultContentTypes``.
    public init(
        decoder: JSONDecoder = JSONDecoder(), acceptableStatusCodes: IndexSet = IndexSet(200..<300),
        acceptableContentTypes: [MediaType] = JSONResponseSerializer.defaultContentTypes
    ) {
        self.validation = HTTPResponseSerializer(
            acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.decode = { try decoder.decode(Value.self, from: $0) }
        self.registry = nil
    }

    /// Decodes with any function (a property-list decoder, a plugin's).
    public init(validation: HTTPResponseSerializer, decode: @escaping @Sendable (Data) throws -> Value) {
        self.validation = validation
        self.decode = decode
        self.registry = nil
    }

    /// Decodes through whichever plugin in `registry` serializes the response's media type (an NDJSON
    /// plugin, a CSV plugin), falling back to `decoder` for JSON. Any content type is accepted; one that
    /// neither a plugin nor JSON handles is ``SluiceError/Code/unacceptableContentType``.
    ///
    /// - Parameters:
    ///   - registry: The plugins to ask.
    ///   - decoder: Decodes JSON, and the plugins' output. Default `JSONDecoder()`.
    ///   - acceptableStatusCodes: The statuses accepted; any other fails with
    ///     ``SluiceError/Code/unacceptableStatusCode``. Default 200–299.
    public init(registry: SerializerRegistry, decoder: JSONDecoder = JSONDecoder(), acceptableStatusCodes: IndexSet = IndexSet(200..<300)) {
        self.validation = HTTPResponseSerializer(acceptableStatusCodes: acceptableStatusCodes)
        self.decode = { try decoder.decode(Value.self, from: $0) }
        self.registry = registry
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and decodes.
    ///
    /// - Throws: ``SluiceError`` with the validation codes, ``SluiceError/Code/emptyResponse``, or
    ///   ``SluiceError/Code/decodingFailed`` with the decoder's error underneath.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Value {
        try validation.validate(request: request, response: response, body: body)
        if EmptyBody.isEmpty(request: request, response: response, body: body) {
            if let empty = Empty.value as? Value { return empty }
            throw SluiceError(
                .emptyResponse, "expected a \(Value.self) but the response had no body", request: request,
                response: response, body: body)
        }
        var json = body!
        if let registry {
            guard let type = response.contentType else {
                throw SluiceError(.unacceptableContentType, "Request failed: unacceptable content-type: none" + HTTPResponseSerializer.naming(request, response),
                                  request: request, response: response, body: body)
            }
            if let match = registry.responseMatch(for: type) {
                let value = try match.serializer.serialize(request: request, response: response, body: body)
                do {
                    guard let encodable = value as? any Encodable else {
                        throw SluiceError(.decodingFailed, "plugin \(match.plugin.name) produced \(Swift.type(of: value)), which is not Encodable")
                    }
                    json = try JSONEncoder().encode(encodable)
                } catch {
                    throw SluiceError(.decodingFailed, "cannot re-encode \(match.plugin.name)'s output: \(error)",
                                      request: request, response: response, body: body, underlying: ForeignError(error))
                }
            } else if !JSONResponseSerializer.defaultContentTypes.contains(where: { $0.matches(type) }) {
                throw SluiceError(.unacceptableContentType, "Request failed: unacceptable content-type: \(type.essence)" + HTTPResponseSerializer.naming(request, response),
                                  request: request, response: response, body: body)
            }
        }
        do {
            return try decode(json)
        } catch {
            throw SluiceError(
                .decodingFailed, "cannot decode \(Value.self): \(error)", request: request, response: response, body: body,
                underlying: ForeignError(error))
        }
    }
}
