import Foundation

/// A request to send: URL, method, headers, body and per-request options.
///
/// A plain value: copy it, change it, hand it to a session. Serializers build requests from
/// parameters; a session sends them.
///
/// ```swift
/// var request = HTTPRequest(url: "https://example.com/items", method: .post)   // a literal: no try
/// try request.headers.set(name: "Content-Type", value: "application/json")
/// request.body = .bytes(Data(#"{"name":"sluice"}"#.utf8))
/// ```
public struct HTTPRequest: Sendable, CustomStringConvertible {
    /// How a request may use cached responses. A hint for layers that cache; the transport itself
    /// keeps no HTTP cache.
    public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
        /// Follow the protocol's caching rules. The default.
        case useProtocolCachePolicy
        /// Always load from the origin.
        case reloadIgnoringCache
        /// Use a cached response whatever its age, loading only when there is none.
        case returnCacheDataElseLoad
        /// Use a cached response only; fail when there is none.
        case returnCacheDataDontLoad
    }

    /// The fields, shared by copies until one of them changes (copy on write): a request is copied into
    /// its task, its transfer, its response and its errors, and a copy of one reference costs one retain
    /// where a copy of the fields cost one per field that holds a reference.
    private final class Storage: @unchecked Sendable {
        // Changed only through a uniquely referenced storage (`unique()`), so never while shared: the
        // exclusivity of the value that owns it is checked where that value is, and a run-time check of
        // each field here would only repeat it (at a cost on every read of the request path).
        @exclusivity(unchecked) var url: URL
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: HTTPBody
        @exclusivity(unchecked) var timeout: TimeInterval?
        @exclusivity(unchecked) var shouldHandleCookies = true
        @exclusivity(unchecked) var cachePolicy = CachePolicy.useProtocolCachePolicy
        @exclusivity(unchecked) var contentEncoding: String?
        @exclusivity(unchecked) var isSafeToRepeat: Bool?
        @exclusivity(unchecked) var redirectPolicy: RedirectPolicy?
        @exclusivity(unchecked) var resourceTimeout: TimeInterval?
        @exclusivity(unchecked) var connection: ConnectionSettings?
        @exclusivity(unchecked) var proxy: ProxyChoice?

        init(url: URL, method: HTTPMethod, headers: HTTPHeaders, body: HTTPBody, timeout: TimeInterval?) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.timeout = timeout
        }

        func copy() -> Storage {
            let copy = Storage(url: url, method: method, headers: headers, body: body, timeout: timeout)
            copy.shouldHandleCookies = shouldHandleCookies
            copy.cachePolicy = cachePolicy
            copy.contentEncoding = contentEncoding
            copy.isSafeToRepeat = isSafeToRepeat
            copy.redirectPolicy = redirectPolicy
            copy.resourceTimeout = resourceTimeout
            copy.connection = connection
            copy.proxy = proxy
            return copy
        }
    }

    private var storage: Storage

    /// The storage, copied first when another request shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The absolute URL to request.
    public var url: URL {
        get { storage.url }
        _modify { yield &unique().url }
    }
    /// The method. Default ``HTTPMethod/get``.
    public var method: HTTPMethod {
        get { storage.method }
        _modify { yield &unique().method }
    }
    /// The header fields. Default empty.
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &unique().headers }
    }
    /// The body. Default ``HTTPBody/none``.
    public var body: HTTPBody {
        get { storage.body }
        _modify { yield &unique().body }
    }
    /// Whether the body is a ``HTTPBody/stream(_:)``, read in place (a copy of the body goes through its
    /// type's metadata).
    package var hasBodyStream: Bool {
        if case .stream = storage.body { true } else { false }
    }
    /// The time allowed without progress before the request fails, in seconds, or `nil` for the
    /// session's default. Default `nil`.
    public var timeout: TimeInterval? {
        get { storage.timeout }
        _modify { yield &unique().timeout }
    }
    /// Whether cookies from the session's store are sent and received cookies stored. Default `true`.
    public var shouldHandleCookies: Bool {
        get { storage.shouldHandleCookies }
        _modify { yield &unique().shouldHandleCookies }
    }
    /// The cache policy hint. Default ``CachePolicy/useProtocolCachePolicy``.
    public var cachePolicy: CachePolicy {
        get { storage.cachePolicy }
        _modify { yield &unique().cachePolicy }
    }
    /// A content coding (`gzip`) a session applies to the body while it sends it: opt-in per request.
    /// The session looks the name up in its registry, encodes the body as it is read (never holding it
    /// whole), sends `Content-Encoding` with the coding's name and, the encoded length being unknown,
    /// chunked transfer coding. `nil` sends the body as it is. Default `nil`.
    ///
    /// A session fails the request with ``SluiceError/Code/contentCodingUnsupported`` when its registry
    /// has no coding of that name that encodes.
    public var contentEncoding: String? {
        get { storage.contentEncoding }
        _modify { yield &unique().contentEncoding }
    }

    /// Whether a transport may send this request again, once, when the reused connection it went out on
    /// closes before any byte of the answer (a server closing an idle connection just as the request
    /// left). `nil` (the default) decides by method: RFC 9110's idempotent methods (GET, HEAD, PUT,
    /// DELETE, OPTIONS, TRACE) may be repeated, others (POST, PATCH) never are, since the server may have
    /// acted on them. Set `true` for a request the server deduplicates (an idempotency key), `false` for
    /// one that must go out at most once.
    public var isSafeToRepeat: Bool? {
        get { storage.isSafeToRepeat }
        _modify { yield &unique().isSafeToRepeat }
    }

    /// What to do when this request's response redirects; `nil` (the default) follows the session's
    /// policy. Read by the session's follow-ups for each hop of the request.
    public var redirectPolicy: RedirectPolicy? {
        get { storage.redirectPolicy }
        _modify { yield &unique().redirectPolicy }
    }

    /// Seconds the whole request may take, redirects and authentication rounds included; `nil` (the
    /// default) uses the session's resource timeout. Past it the request fails with
    /// ``SluiceError/Code/resourceTimedOut``.
    public var resourceTimeout: TimeInterval? {
        get { storage.resourceTimeout }
        _modify { yield &unique().resourceTimeout }
    }

    /// This request's connection settings (a Unix socket, overrides, the local interface, the address
    /// family, `100-continue`), replacing the session's whole value for it and its redirects; `nil` uses
    /// the session's. Default `nil`.
    public var connection: ConnectionSettings? {
        get { storage.connection }
        _modify { yield &unique().connection }
    }

    /// This request's proxy choice, in place of the session's for it and its redirects; `nil` uses the
    /// session's. Default `nil`.
    public var proxy: ProxyChoice? {
        get { storage.proxy }
        _modify { yield &unique().proxy }
    }

    /// ``isSafeToRepeat``, or the method's idempotence when it is `nil`.
    public var mayBeRepeated: Bool { isSafeToRepeat ?? method.isIdempotent }

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - method: The method. Default `GET`.
    ///   - headers: The header fields. Default none.
    ///   - body: The body. Default none.
    ///   - timeout: Seconds without progress before failing; `nil` uses the session's. Default `nil`.
    public init(
        url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = HTTPHeaders(), body: HTTPBody = .none,
        timeout: TimeInterval? = nil
    ) {
        storage = Storage(url: url, method: method, headers: headers, body: body, timeout: timeout)
    }

    /// Creates a request from a URL written in the source, without `try`:
    /// `HTTPRequest(url: "https://example.com/items")`.
    ///
    /// A literal that is not an absolute `http` or `https` URL with a host is a programming error and
    /// traps, as `URL(string: "...")!` would. For a URL made at run time, use ``init(urlString:relativeTo:method:headers:body:timeout:)``,
    /// which throws instead.
    ///
    /// - Parameters: As ``init(url:method:headers:body:timeout:)-(URL,_,_,_,_)``, with `url` a string literal.
    public init(
        url literal: StaticString, method: HTTPMethod = .get, headers: HTTPHeaders = HTTPHeaders(),
        body: HTTPBody = .none, timeout: TimeInterval? = nil
    ) {
        let string = literal.description
        guard let url = URLText.url(string), Self.problem(with: url) == nil else {
            preconditionFailure("HTTPRequest(url:) needs an absolute http or https URL with a host, got \(string.debugDescription)")
        }
        self.init(url: url, method: method, headers: headers, body: body, timeout: timeout)
    }

    /// Creates a request from a URL string made at run time, resolved against `baseURL` when given
    /// (default `nil`: `string` is absolute).
    ///
    /// The path, query and fragment keep the bytes written wherever a URL can hold them, escapes
    /// included (`%20` stays `%20`, `%2B` stays `%2B`). A character a URL cannot hold there is
    /// percent-encoded once, since Foundation's `URL` has no way to carry it: `?hd=[1]` becomes
    /// `?hd=%5B1%5D`, a space `%20`, `|` `%7C`, a `%` not followed by two hex digits `%25`, non-ASCII
    /// characters their UTF-8 bytes. (AFNetworking keeps the string as `NSURL` holds it; on Linux, where
    /// `URL(string:)` alone would also re-escape the `%` of escapes already there, Sluice keeps those.)
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL`` when `string` does not make an
    ///   absolute `http` or `https` URL with a host, ``SluiceError/Code/invalidMethod`` for a method that
    ///   is not an HTTP token, ``SluiceError/Code/invalidTimeout`` for a timeout that is not positive.
    public init(
        urlString string: String, relativeTo baseURL: URL? = nil, method: HTTPMethod = .get,
        headers: HTTPHeaders = HTTPHeaders(), body: HTTPBody = .none, timeout: TimeInterval? = nil
    ) throws(SluiceError) {
        guard let url = URLText.url(string, relativeTo: baseURL)?.absoluteURL else {
            throw SluiceError(.invalidURL, "cannot parse URL \(string.debugDescription)"
                + (baseURL.map { " relative to \($0.absoluteString)" } ?? ""))
        }
        self.init(url: url, method: method, headers: headers, body: body, timeout: timeout)
        try validate()
    }

    /// Replaced: a literal needs no `try` (``init(url:method:headers:body:timeout:)-(StaticString,_,_,_,_)``);
    /// a string made at run time goes through ``init(urlString:relativeTo:method:headers:body:timeout:)``.
    @available(*, unavailable, renamed: "init(urlString:method:headers:body:timeout:)",
        message: "a String made at run time: use init(urlString:), which throws; a literal needs no try")
    public init(
        url string: String, method: HTTPMethod = .get, headers: HTTPHeaders = HTTPHeaders(),
        body: HTTPBody = .none, timeout: TimeInterval? = nil
    ) throws(SluiceError) {
        try self.init(urlString: string, method: method, headers: headers, body: body, timeout: timeout)
    }

    /// Checks what a transport relies on: an `http` or `https` URL with a host, a method that is an
    /// HTTP token, and a timeout that is positive when given.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL`` or
    ///   ``SluiceError/Code/invalidMethod`` or ``SluiceError/Code/invalidTimeout``, carrying this request.
    public func validate() throws(SluiceError) {
        try validateForSending()
        if let timeout, !(timeout > 0) {
            throw SluiceError(.invalidTimeout, "timeout must be positive, got \(timeout)", request: self)
        }
    }

    /// Checks what no transport may put on the wire otherwise: an `http` or `https` URL with a host, and
    /// a method that is an HTTP token (RFC 9110 §9.1: no space, CR, LF, NUL or separator, so a method can
    /// never add a header line or a second request). Header names and values need no check here: every
    /// ``HTTPHeader`` was checked when it was made. The session runs this for every request it sends,
    /// redirects included, before anything is sent; an ``HTTPTransport`` of another package runs it too.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL`` or
    ///   ``SluiceError/Code/invalidMethod``, carrying this request.
    public func validateForSending() throws(SluiceError) {
        if let problem = Self.problem(with: storage.url) {
            throw SluiceError(.invalidURL, problem, request: self)
        }
        guard HTTPToken.isToken(storage.method.rawValue) else {
            throw SluiceError(.invalidMethod, "invalid HTTP method \(storage.method.rawValue.debugDescription)", request: self)
        }
    }

    /// Why `url` cannot be sent (not `http`, `https`, `http+unix` or `https+unix`, or no host), or `nil`
    /// when it can.
    ///
    /// Read from the URL's string (``URLHead``), the string libcurl is given: Foundation's `scheme` and
    /// decoded `host` cost about a microsecond and a half between them, and every request sent is checked.
    static func problem(with url: URL) -> String? {
        let text = url.absoluteString
        let head = URLHead(text)
        guard head.scheme != .other else { return "unsupported URL scheme in \(text)" }
        guard head.hasHost else { return "URL has no host: \(text)" }
        return nil
    }

    /// For `http+unix` or `https+unix` in any case (async-http-client's form of a URL whose host is a
    /// percent-encoded Unix socket path), the scheme sent over the socket: `http` or `https`; else `nil`.
    package static func unixSocketScheme(_ scheme: String) -> String? {
        let bytes = scheme.utf8
        // `http` and `https`, the schemes of nearly every request, are ruled out by their length alone.
        guard bytes.count > 5, bytes.suffix(5).elementsEqual("+unix".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        let base = String(decoding: bytes.dropLast(5), as: UTF8.self)
        return isHTTPScheme(base) ? base.lowercased() : nil
    }

    /// Whether `scheme` is `http` or `https` in any case, compared without making a lowercased copy (the
    /// transport asks for every request it sends).
    private static func isHTTPScheme(_ scheme: String) -> Bool {
        var utf8 = scheme.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = utf8.next(), byte | 0x20 == expected else { return false }
        }
        guard let last = utf8.next() else { return true }
        return last | 0x20 == UInt8(ascii: "s") && utf8.next() == nil
    }

    /// `METHOD url`, the URL without its user name and password (``RequestTarget``): a request printed
    /// into a log or a test's output does not show them. ``url`` keeps them.
    public var description: String { RequestTarget(self).description }
}
