import Foundation
import SluiceCore


/// Builds requests with a JSON body, the way AFNetworking's `AFJSONRequestSerializer` does.
///
/// For the methods whose parameters go into the query (`GET`, `HEAD`, `DELETE` by default) it behaves
/// exactly like its ``http`` serializer. For other methods with parameters, it sets
/// `Content-Type: application/json` (unless one is set) and writes the parameters as JSON; without
/// parameters the request has no body. Top-level arrays and scalars are allowed.
///
/// ```swift
/// let serializer = JSONRequestSerializer(writingOptions: .sortedKeys)
/// let request = try serializer.request(method: .post, urlString: "https://example.com/items",
///                                      parameters: ["name": "sluice", "tags": ["http", "linux"]])
/// // body: {"name":"sluice","tags":["http","linux"]}
/// ```
public final class JSONRequestSerializer: RequestSerializer {
    /// The serializer that holds the default headers, URI methods and request settings, and builds
    /// requests for the URI methods.
    public let http: HTTPRequestSerializer

    private let options: Locked<JSONWritingOptions>

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - http: The serializer for headers, settings and URI methods. Default: a new one.
    ///   - writingOptions: How JSON is written. Default none: keys in their order, compact, `\/`.
    public init(http: HTTPRequestSerializer = HTTPRequestSerializer(), writingOptions: JSONWritingOptions = []) {
        self.http = http
        self.options = Locked(writingOptions)
    }

    /// How JSON is written. Default none.
    public var writingOptions: JSONWritingOptions {
        get { options.withLock { $0 } }
        set { options.withLock { $0 = newValue } }
    }

    /// `application/json`.
    public var contentType: MediaType? { .json }

    /// Builds a request: resolves the URL and applies the settings of ``http``, then
    /// ``serialize(_:with:)``.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL``, or what
    ///   ``serialize(_:with:)`` throws.
    public func request(
        method: HTTPMethod, urlString: String, relativeTo baseURL: URL? = nil, parameters: Parameters? = nil
    ) throws(SluiceError) -> HTTPRequest {
        try serialize(http.makeRequest(method: method, urlString: urlString, relativeTo: baseURL), with: parameters)
    }

    /// A bare request with the settings of ``http``: its timeout, cookie and cache settings.
    ///
    /// - Throws: As ``HTTPRequestSerializer/makeRequest(method:urlString:relativeTo:)``.
    public func makeRequest(method: HTTPMethod, urlString: String, relativeTo baseURL: URL?) throws(SluiceError)
        -> HTTPRequest
    {
        try http.makeRequest(method: method, urlString: urlString, relativeTo: baseURL)
    }

    /// The fields of a multipart form, as ``http`` makes them.
    public func formFields(from parameters: Parameters) -> [FormField]? { http.formFields(from: parameters) }

    /// Builds a request whose body is `body` encoded by `encoder`, for any method.
    ///
    /// - Parameters:
    ///   - method: The method; the body is sent whichever it is, `GET` included.
    ///   - urlString: The URL, absolute or relative to `baseURL`.
    ///   - baseURL: The URL `urlString` is resolved against. Default `nil`: `urlString` is absolute.
    ///   - body: The value to encode as the JSON body. The request also gets the default headers, and
    ///     `Content-Type: application/json` unless one of them sets a `Content-Type`.
    ///   - encoder: The caller's encoder, with its strategies. Default: a plain `JSONEncoder`.
    /// - Throws: As ``makeRequest(method:urlString:relativeTo:)`` (``SluiceError/Code/invalidURL``,
    ///   ``SluiceError/Code/invalidTimeout``), or ``SluiceError`` with code
    ///   ``SluiceError/Code/jsonEncodingFailed`` with the encoder's error underneath.
    public func request(
        method: HTTPMethod, urlString: String, relativeTo baseURL: URL? = nil, body: some Encodable,
        encoder: JSONEncoder = JSONEncoder()
    ) throws(SluiceError) -> HTTPRequest {
        var request = http.applyingDefaultHeaders(
            to: try http.makeRequest(method: method, urlString: urlString, relativeTo: baseURL))
        do {
            request.body = .bytes(try encoder.encode(body))
        } catch {
            throw SluiceError(
                .jsonEncodingFailed, "cannot encode \(type(of: body)) as JSON: \(error)", request: request,
                underlying: ForeignError(error))
        }
        setJSONContentTypeIfAbsent(&request)
        return request
    }

    /// Returns `request` with the default headers it lacks and `parameters` as a JSON body (or, for
    /// URI methods, in the query).
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/jsonInvalidValue`` for a value JSON cannot
    ///   hold (a set, data, a non-finite number), or what ``HTTPRequestSerializer/serialize(_:with:)``
    ///   throws for URI methods. No request is made.
    public func serialize(_ request: HTTPRequest, with parameters: Parameters?) throws(SluiceError) -> HTTPRequest {
        if http.encodesParametersInURI(request.method) {
            return try http.serialize(request, with: parameters)
        }
        var request = http.applyingDefaultHeaders(to: request)
        guard let parameters else { return request }
        do {
            request.body = .bytes(try JSONWriter.write(parameters, options: writingOptions))
        } catch {
            var error = error
            error.request = request
            throw error
        }
        setJSONContentTypeIfAbsent(&request)
        return request
    }

    private func setJSONContentTypeIfAbsent(_ request: inout HTTPRequest) {
        guard !request.headers.contains("Content-Type") else { return }
        // A constant, valid header.
        try? request.headers.set(name: "Content-Type", value: "application/json")
    }
}
