import Foundation
import SluiceCore

/// Validates a response and decodes a JSON body into ``Parameters``, as AFNetworking's
/// `AFJSONResponseSerializer` does.
///
/// - Accepts `application/json`, `text/json`, `text/javascript` and any `+json` type.
/// - An empty or whitespace-only body, a `204`/`205`, and a `HEAD` response give `nil` and no error.
/// - When only the status fails, the body is still decoded and carried as the error's
///   ``SluiceError/decodedBody``, so an error document can be read.
/// - Invalid JSON is ``SluiceError/Code/invalidJSON``, with any validation error underneath.
public struct JSONResponseSerializer: ResponseSerializer {
    /// The validation rules; content types default to the JSON types.
    public var validation: HTTPResponseSerializer
    /// Whether `null` dictionary values and `null` array elements are removed, recursively. Default `false`.
    public var removesKeysWithNullValues: Bool

    /// The types accepted by default.
    public static let defaultContentTypes = ["application/json", "text/json", "text/javascript", "*/*+json"]
        .compactMap { MediaType($0) }

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - acceptableStatusCodes: Default 200–299.
    ///   - acceptableContentTypes: Default ``defaultContentTypes``.
    ///   - removesKeysWithNullValues: Default `false`.
    public init(
        acceptableStatusCodes: IndexSet = IndexSet(200..<300),
        acceptableContentTypes: [MediaType] = JSONResponseSerializer.defaultContentTypes,
        removesKeysWithNullValues: Bool = false
    ) {
        self.validation = HTTPResponseSerializer(
            acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and decodes.
    ///
    /// - Throws: ``SluiceError`` (see the type's description).
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        var validationError: SluiceError?
        do {
            try validation.validate(request: request, response: response, body: body)
        } catch {
            // A status-only failure still decodes the body for the error; a content-type failure does not.
            guard error.code == .unacceptableStatusCode, error.underlying == nil else { throw error }
            validationError = error
        }
        let value: Parameters?
        do throws(SluiceError) {
            value = try decode(request: request, response: response, body: body)
        } catch {
            var error = error
            if let validationError { error.underlying = validationError }
            throw error
        }
        if var validationError {
            validationError.decodedBody = value
            throw validationError
        }
        return value
    }

    private func decode(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Parameters? {
        guard let body, !EmptyBody.isEmpty(request: request, response: response, body: body) else { return nil }
        let value: Parameters
        do {
            value = try Parameters(json: body)
        } catch {
            throw SluiceError(
                .invalidJSON, "the response body is not valid JSON: \(error)", request: request, response: response,
                body: body, underlying: ForeignError(error))
        }
        return removesKeysWithNullValues ? NullRemoval.removingNulls(value) : value
    }
}
