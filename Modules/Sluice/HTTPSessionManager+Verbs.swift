import Foundation
import SluiceCore
import SluiceMultipart
import SluiceResponseSerialization
import SluiceTransport

/// The verbs, async. Each builds the request with the request serializer (parameters in the query
/// for `GET`, `HEAD` and `DELETE`, in the body otherwise), sends it through the interceptor, and
/// serializes the response: with ``HTTPSessionManager/responseSerializer`` into `(any Sendable)?`, or,
/// given a type, with a ``DecodableResponseSerializer`` over the registry. `HEAD` validates the status
/// only and yields no value.
///
/// All throw ``SluiceError``: a request that cannot be built (nothing is sent), a transport failure,
/// or a response the serializer refuses (carrying the response and its body).
extension HTTPSessionManager {
    // MARK: Untyped (the response serializer's value)

    /// `GET urlString`; `progress` reports the download.
    public func get(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        try await perform(.get, urlString, parameters, headers, progress)
    }

    /// `POST urlString` with the parameters in the body; `progress` reports the upload and the download.
    public func post(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        try await perform(.post, urlString, parameters, headers, progress)
    }

    /// `PUT urlString` with the parameters in the body.
    public func put(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        try await perform(.put, urlString, parameters, headers, nil)
    }

    /// `PATCH urlString` with the parameters in the body.
    public func patch(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        try await perform(.patch, urlString, parameters, headers, nil)
    }

    /// `DELETE urlString` with the parameters in the query.
    public func delete(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        try await perform(.delete, urlString, parameters, headers, nil)
    }

    /// `HEAD urlString`: the status is validated (2xx), there is no value.
    public func head(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) async throws(SluiceError) -> HTTPSessionResponse<Void> {
        let request = try request(.head, urlString, parameters: parameters, headers: headers)
        return try await send(request, progress: nil, task: nil, serialize: Self.headValidation)
    }

    /// A multipart `POST`: `parameters` as form fields, then the parts `constructingBody` appends;
    /// `progress` reports the upload.
    ///
    /// It runs in its caller's isolation (`nonisolated(nonsending)`), where `constructingBody` runs
    /// before anything is sent: a closure that captures the caller's state may be passed from the main
    /// actor (an `@main` program's `main`) without being `Sendable`.
    nonisolated(nonsending) public func post(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        constructingBody: (any MultipartFormData) throws -> Void, progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        let request = try multipartRequest(
            urlString, parameters: parameters, headers: headers, constructingBody: constructingBody)
        return try await send(request, progress: progress, task: nil, serialize: untypedSerialization())
    }

    // MARK: Decodable

    /// `method urlString`, the body decoded as `type` (JSON, or any format the registry decodes).
    public func request<Value: Decodable & Sendable>(
        _ method: HTTPMethod, _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: JSONDecoder = JSONDecoder(), progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<Value> {
        let request = try request(method, urlString, parameters: parameters, headers: headers)
        return try await send(request, serializer: decodable(type, decoder), progress: progress)
    }

    /// `GET urlString`, the body decoded as `type`.
    public func get<Value: Decodable & Sendable>(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: JSONDecoder = JSONDecoder(), progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<Value> {
        try await request(.get, urlString, parameters: parameters, headers: headers, as: type, decoder: decoder, progress: progress)
    }

    /// `POST urlString`, the body decoded as `type`.
    public func post<Value: Decodable & Sendable>(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: JSONDecoder = JSONDecoder(), progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<Value> {
        try await request(.post, urlString, parameters: parameters, headers: headers, as: type, decoder: decoder, progress: progress)
    }

    /// A multipart `POST`, the body decoded as `type`. Runs in its caller's isolation, as
    /// ``post(_:parameters:headers:constructingBody:progress:)`` does.
    nonisolated(nonsending) public func post<Value: Decodable & Sendable>(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        constructingBody: (any MultipartFormData) throws -> Void, as type: Value.Type,
        decoder: JSONDecoder = JSONDecoder(), progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<Value> {
        let request = try multipartRequest(
            urlString, parameters: parameters, headers: headers, constructingBody: constructingBody)
        return try await send(request, serializer: decodable(type, decoder), progress: progress)
    }

    /// Sends `body` as it is (bytes, a file, a stream, an async sequence: ``HTTPBody/asyncSequence(length:_:)``)
    /// with `method`, and makes the response serializer's value; the request serializer sets no body.
    ///
    /// - Parameters:
    ///   - urlString: A URL, relative to the base URL.
    ///   - method: The method. Default `POST`.
    ///   - body: The body.
    ///   - headers: More header fields (a `Content-Type` for the body). Default none.
    ///   - progress: Called as bytes are sent and received. Default `nil`.
    /// - Returns: The response, its data and the response serializer's value.
    /// - Throws: As ``post(_:parameters:headers:progress:)``; a body that cannot be sent again (one async
    ///   sequence) is not retried: the retry fails with ``SluiceError/Code/bodyNotRewindable``.
    public func upload(
        _ urlString: String, method: HTTPMethod = .post, body: HTTPBody, headers: HTTPHeaders = HTTPHeaders(),
        progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        var request = try request(method, urlString, parameters: nil, headers: headers)
        request.body = body
        return try await send(request, progress: progress, task: nil, serialize: untypedSerialization())
    }

    // MARK: Helpers

    private func perform(
        _ method: HTTPMethod, _ urlString: String, _ parameters: Parameters?, _ headers: HTTPHeaders,
        _ progress: ProgressHandler?
    ) async throws(SluiceError) -> HTTPSessionResponse<(any Sendable)?> {
        let request = try request(method, urlString, parameters: parameters, headers: headers)
        return try await send(request, progress: progress, task: nil, serialize: untypedSerialization())
    }

    private func decodable<Value: Decodable & Sendable>(_ type: Value.Type, _ decoder: JSONDecoder) -> DecodableResponseSerializer<Value> {
        DecodableResponseSerializer<Value>(registry: registry, decoder: decoder)
    }

    /// The response serializer's value, type-erased; an optional's `nil` becomes `nil`.
    func untypedSerialization() -> Serialize<(any Sendable)?> {
        let serializer = responseSerializer
        return { (request, response, data) throws(SluiceError) in
            Self.flattened(try Self.serialize(serializer, request, response, data))
        }
    }

    private static func serialize(
        _ serializer: some ResponseSerializer, _ request: HTTPRequest, _ response: HTTPResponse, _ data: Data
    ) throws(SluiceError) -> any Sendable {
        try serializer.serialize(request: request, response: response, body: data)
    }

    /// `value`, or `nil` when it is an empty optional (a JSON serializer's "no body"). A present
    /// optional stays as it is: casts (`as? Parameters`) look through it.
    static func flattened(_ value: any Sendable) -> (any Sendable)? {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty ? nil : value
    }

    /// `HEAD`: the status must be acceptable (2xx); there is no body to serialize.
    static let headValidation: Serialize<Void> = { (request, response, data) throws(SluiceError) in
        try HTTPResponseSerializer().validate(request: request, response: response, body: data)
    }
}
