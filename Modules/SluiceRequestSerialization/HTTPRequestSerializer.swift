import Foundation
import SluiceCore


/// Builds requests with parameters in the query or in a form body, the way AFNetworking's
/// `AFHTTPRequestSerializer` does.
///
/// - Parameters of `GET`, `HEAD` and `DELETE` (``httpMethodsEncodingParametersInURI``) go into the query,
///   appended with `&` to a query the URL already has. That query is kept as the caller wrote it, escapes
///   included, except characters a URL cannot hold, which are percent-encoded once (`?hd=[1]` is sent as
///   `?hd=%5B1%5D`: Foundation's `URL` cannot carry `[`; see `HTTPRequest.init(urlString:)`). Other
///   methods send them as an
///   `application/x-www-form-urlencoded` body (unless a `Content-Type` is already set). A `POST`
///   without parameters gets an empty body.
/// - Default headers (`Accept-Language`, `User-Agent`, plus what you set) are added to every request
///   that does not set the same header itself.
/// - The query string follows ``QueryStringSerialization``, or a closure you provide.
///
/// A serializer is a reference shared by the requests it builds; all its settings may be read and
/// changed from many threads at once.
///
/// ```swift
/// let serializer = HTTPRequestSerializer()
/// try serializer.setValue("application/json", forHTTPHeaderField: "Accept")
/// let request = try serializer.request(method: .get, urlString: "https://example.com/search",
///                                      parameters: ["q": "sluice", "page": 2])
/// // GET https://example.com/search?page=2&q=sluice
/// ```
public final class HTTPRequestSerializer: RequestSerializer {
    /// A replacement for the query-string algorithm: given the request and the parameters, returns
    /// the query string (already escaped). Errors it throws fail the request.
    public typealias QueryStringClosure = @Sendable (HTTPRequest, Parameters) throws -> String

    private struct State {
        var headers = HTTPHeaders()
        var methodsInURI: Set<String> = ["GET", "HEAD", "DELETE"]
        var queryStringClosure: QueryStringClosure?
        var queryStringOptions = QueryStringSerialization.Options.afNetworking
        var timeout: TimeInterval?
        var shouldHandleCookies = true
        var cachePolicy = HTTPRequest.CachePolicy.useProtocolCachePolicy
    }
    private let state = Locked(State())

    /// Creates a serializer with the default headers.
    ///
    /// - Parameters:
    ///   - environment: Where `LANGUAGE`, `LC_ALL`, `LC_MESSAGES` and `LANG` are read for
    ///     `Accept-Language`. Default: the process's environment.
    ///   - applicationName: The product in `User-Agent`. Default: the process name.
    ///   - applicationVersion: Its version. Default: the main bundle's `CFBundleShortVersionString` or
    ///     `CFBundleVersion`, else `unknown`.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, applicationName: String? = nil,
        applicationVersion: String? = nil
    ) {
        let language = SystemIdentity.acceptLanguage(environment: environment)
        let agent = SystemIdentity.userAgent(application: applicationName, version: applicationVersion)
        state.withLock { state in
            // Both values are built from ASCII without control characters.
            try? state.headers.set(name: "Accept-Language", value: language)
            try? state.headers.set(name: "User-Agent", value: agent)
        }
    }

    /// `application/x-www-form-urlencoded`: the type of the bodies this serializer writes.
    public var contentType: MediaType? { .formURLEncoded }

    // MARK: Default headers

    /// The headers added to every request that does not set them itself.
    public var httpRequestHeaders: HTTPHeaders { state.withLock { $0.headers } }

    /// Sets a default header; `nil` removes it.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidHeaderName`` or
    ///   ``SluiceError/Code/invalidHeaderValue`` (CR, LF or NUL in the value); nothing changes then.
    public func setValue(_ value: String?, forHTTPHeaderField field: String) throws(SluiceError) {
        let header: HTTPHeader? = try value.map { (value) throws(SluiceError) in try HTTPHeader(name: field, value: value) }
        state.withLock { state in
            if let header { state.headers.replace(with: header) } else { state.headers.remove(field) }
        }
    }

    /// The default value of a header (name compared ignoring case), or `nil`.
    public func value(forHTTPHeaderField field: String) -> String? { state.withLock { $0.headers[field] } }

    /// Sets `Authorization: Basic base64(username:password)` as a default header.
    public func setAuthorizationHeader(username: String, password: String) {
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        state.withLock { state in
            // Base64 text is always a valid header value.
            try? state.headers.set(name: "Authorization", value: "Basic \(credentials)")
        }
    }

    /// Removes the default `Authorization` header.
    public func clearAuthorizationHeader() { state.withLock { $0.headers.remove("Authorization") } }

    // MARK: Settings

    /// The methods whose parameters go into the query, compared ignoring case. Default `GET`, `HEAD`,
    /// `DELETE`.
    public var httpMethodsEncodingParametersInURI: Set<String> {
        get { state.withLock { $0.methodsInURI } }
        set { state.withLock { $0.methodsInURI = Set(newValue.map { $0.uppercased() }) } }
    }

    /// The rules of the built-in query-string algorithm. Default: AFNetworking's.
    public var queryStringOptions: QueryStringSerialization.Options {
        get { state.withLock { $0.queryStringOptions } }
        set { state.withLock { $0.queryStringOptions = newValue } }
    }

    /// The timeout given to built requests, in seconds; `nil` leaves the session's. Default `nil`.
    public var timeoutInterval: TimeInterval? {
        get { state.withLock { $0.timeout } }
        set { state.withLock { $0.timeout = newValue } }
    }

    /// Whether built requests send and store cookies. Default `true`.
    public var shouldHandleCookies: Bool {
        get { state.withLock { $0.shouldHandleCookies } }
        set { state.withLock { $0.shouldHandleCookies = newValue } }
    }

    /// The cache policy hint given to built requests. Default `.useProtocolCachePolicy`.
    public var cachePolicy: HTTPRequest.CachePolicy {
        get { state.withLock { $0.cachePolicy } }
        set { state.withLock { $0.cachePolicy = newValue } }
    }

    /// Replaces the query-string algorithm with `closure`.
    public func setQueryStringSerialization(_ closure: @escaping QueryStringClosure) {
        state.withLock { $0.queryStringClosure = closure }
    }

    /// Goes back to the built-in query-string algorithm.
    public func resetQueryStringSerialization() { state.withLock { $0.queryStringClosure = nil } }

    /// Whether parameters of `method` go into the query.
    public func encodesParametersInURI(_ method: HTTPMethod) -> Bool {
        let name = method.rawValue.uppercased()
        return state.withLock { $0.methodsInURI.contains(name) }
    }

    /// The fields of a multipart form: `parameters` flattened with ``queryStringOptions``, as
    /// ``QueryStringSerialization/formFields(from:options:)`` does.
    public func formFields(from parameters: Parameters) -> [FormField]? {
        QueryStringSerialization.formFields(from: parameters, options: queryStringOptions)
    }

    // MARK: Building requests

    /// Builds a request: resolves `urlString` against `baseURL`, applies the timeout, cookie and cache
    /// settings, then ``serialize(_:with:)``.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - urlString: An absolute URL, or one relative to `baseURL`.
    ///   - baseURL: The base for relative URLs. Default `nil`.
    ///   - parameters: The parameters. Default `nil`.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL`` when the URL cannot be
    ///   resolved to an absolute `http` or `https` URL, or what ``serialize(_:with:)`` throws.
    public func request(
        method: HTTPMethod, urlString: String, relativeTo baseURL: URL? = nil, parameters: Parameters? = nil
    ) throws(SluiceError) -> HTTPRequest {
        try serialize(makeRequest(method: method, urlString: urlString, relativeTo: baseURL), with: parameters)
    }

    /// Returns `request` with the default headers it lacks and `parameters` in its query or body.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/queryStringFailed`` (the custom closure
    ///   threw; its error is underneath, or rethrown as is when it is a ``SluiceError``), or
    ///   ``SluiceError/Code/invalidURL`` when the query makes the URL invalid. No request is made.
    public func serialize(_ request: HTTPRequest, with parameters: Parameters?) throws(SluiceError) -> HTTPRequest {
        var request = applyingDefaultHeaders(to: request)
        let (closure, options) = state.withLock { ($0.queryStringClosure, $0.queryStringOptions) }
        var query: String?
        if let parameters {
            if let closure {
                do {
                    query = try closure(request, parameters)
                } catch {
                    throw SluiceError.wrapping(error, as: .queryStringFailed, "the query-string closure failed", request: request)
                }
            } else {
                query = QueryStringSerialization.serialize(parameters, options: options)
            }
        }
        if encodesParametersInURI(request.method) {
            if let query, !query.isEmpty {
                request.url = try Self.appending(query: query, to: request)
            }
        } else {
            if !request.headers.contains("Content-Type") {
                // A constant, valid header.
                try? request.headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
            }
            request.body = .bytes(Data((query ?? "").utf8))
        }
        return request
    }

    /// `request` with every default header it does not set itself.
    public func applyingDefaultHeaders(to request: HTTPRequest) -> HTTPRequest {
        var request = request
        let present = Set(request.headers.map { $0.name.lowercased() })
        for header in httpRequestHeaders where !present.contains(header.name.lowercased()) {
            request.headers.add(header)
        }
        return request
    }

    /// A bare request for `urlString` with this serializer's timeout, cookie and cache settings.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL``, or
    ///   ``SluiceError/Code/invalidTimeout`` when ``timeoutInterval`` is not positive.
    public func makeRequest(method: HTTPMethod, urlString: String, relativeTo baseURL: URL?) throws(SluiceError)
        -> HTTPRequest
    {
        let settings = state.withLock { ($0.timeout, $0.shouldHandleCookies, $0.cachePolicy) }
        var request = try HTTPRequest(urlString: urlString, relativeTo: baseURL, method: method, timeout: settings.0)
        request.shouldHandleCookies = settings.1
        request.cachePolicy = settings.2
        return request
    }

    /// The URL with `query` appended: after `&` when it has a query, else after `?`; a fragment stays last.
    /// The URL's own bytes and the query's are kept where a URL can hold them (a custom query closure's
    /// text included: characters a URL cannot hold are percent-encoded once, escapes are kept).
    static func appending(query: String, to request: HTTPRequest) throws(SluiceError) -> URL {
        var text = request.url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        text += (request.url.query != nil ? "&" : "?") + query + fragment
        guard let url = URLText.url(text) else {
            throw SluiceError(.invalidURL, "the query \(query.debugDescription) makes an invalid URL", request: request)
        }
        return url
    }
}
