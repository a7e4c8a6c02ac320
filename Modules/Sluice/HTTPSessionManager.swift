import Foundation
import Logging
import SluiceCore
import SluiceMultipart
import SluiceReachability
import SluiceRequestSerialization
import SluiceResponseSerialization
import SluiceSecurity
import SluiceTransport

/// The manager most code uses: builds requests relative to a base URL with the request serializer,
/// sends them through its ``transport`` (a ``SessionManager`` unless another ``HTTPTransport`` was
/// given) with an interceptor's adaptation and retries, and turns the responses into values with the
/// response serializer. AFNetworking's `AFHTTPSessionManager`.
///
/// Defaults: ``HTTPRequestSerializer`` for requests, ``JSONResponseSerializer`` for responses, the
/// bundled registry (gzip/deflate, XML, property lists) for content codings and `Decodable` bodies,
/// no interceptor, and the shared ``NetworkReachabilityManager`` — which never holds a request back.
///
/// ```swift
/// let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"))
/// let user = try await manager.get("users/42", as: User.self).value   // GET https://api.example.com/v1/users/42
/// ```
///
/// Every setting may be read and changed from any thread; a request uses the settings it found when
/// it started.
public final class HTTPSessionManager: Sendable {
    /// Receives progress reports of one request: upload progress for bodies, download progress for
    /// responses. The last report of a successful transfer has every byte counted.
    public typealias ProgressHandler = @Sendable (TransferProgress) -> Void

    private struct Settings {
        var requestSerializer: any RequestSerializer
        var responseSerializer: any ResponseSerializer
        var interceptor: (any RequestInterceptor)?
    }

    /// The URL relative paths resolve against; a non-empty path ends with `/`. Default `nil`.
    public let baseURL: URL?
    /// What sends the requests: ``session``, or the transport given to
    /// ``init(baseURL:transport:registry:interceptor:logger:completionQueue:)``.
    public let transport: any HTTPTransport
    /// The libcurl session the requests run on, made by the manager from its configuration; `nil` when
    /// the manager was given another ``transport``.
    public let session: SessionManager?
    /// Serializers and content codings: the bundled plugins unless another registry was given.
    public let registry: SerializerRegistry
    /// Where request lines, statuses and timings go (`debug`: each attempt; `info`: each outcome;
    /// `warning`: a failed attempt that is retried; `error`: a failure; `trace`: headers and bodies).
    /// Default ``silentLogger``: nothing is logged until a logger is passed to the initializer.
    public let logger: Logger
    /// The default ``logger``: labelled `sluice.http`, with swift-log's `SwiftLogNoOpLogHandler`, so a
    /// manager is silent until asked, as Alamofire and AFNetworking are. Bootstrapping swift-log alone does
    /// not turn Sluice's lines on (swift-log does not tell a library whether it was bootstrapped); pass a
    /// logger: `HTTPSessionManager(baseURL: url, logger: Logger(label: "sluice.http"))`.
    public static var silentLogger: Logger { Logger(label: "sluice.http") { _ in SwiftLogNoOpLogHandler() } }
    /// Network reachability, for the application to observe; requests are never held back by it.
    /// Default ``NetworkReachabilityManager/shared``.
    public let reachabilityManager: NetworkReachabilityManager
    /// The security policy the manager was made with, `nil` when the configuration's TLS settings
    /// apply. A policy belongs to the session's connections: to change it, make a new manager.
    public let securityPolicy: SecurityPolicy?
    /// Where completion handlers run: the configuration's completion queue, or the one given with a
    /// transport.
    public let completionQueue: DispatchQueue
    private let settings: Locked<Settings>

    /// A manager whose servers are trusted as `securityPolicy` says, as AFNetworking's
    /// `securityPolicy` property — but the policy is checked against the base URL here, with a typed
    /// error instead of an exception.
    ///
    /// - Parameters: As ``init(baseURL:configuration:registry:interceptor:logger:)``, plus
    ///   `securityPolicy`, which replaces the configuration's TLS settings (and its per-host ones).
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidSecurityPolicy`` when the policy
    ///   pins without certificates, pins while `baseURL` is not `https`, or allows invalid certificates
    ///   with domain validation and no pinning; ``SluiceError/Code/invalidCertificate`` or
    ///   ``SluiceError/Code/invalidClientIdentity`` for certificates it cannot read.
    public convenience init(
        baseURL: URL? = nil, configuration: SessionConfiguration = .default, registry: SerializerRegistry = .bundled(),
        securityPolicy: SecurityPolicy, interceptor: (any RequestInterceptor)? = nil,
        logger: Logger = silentLogger
    ) throws(SluiceError) {
        var configuration = configuration
        try configuration.apply(securityPolicy, baseURL: baseURL.map(Self.normalized))
        self.init(
            baseURL: baseURL, configuration: configuration, registry: registry, interceptor: interceptor,
            logger: logger, securityPolicy: securityPolicy)
    }

    /// A manager for `baseURL` with `configuration`.
    ///
    /// - Parameters:
    ///   - baseURL: Where relative paths resolve. Default `nil` (every path absolute). A non-empty
    ///     path without a trailing `/` gets one, so `users` under `https://h/v1` is `https://h/v1/users`.
    ///   - configuration: The transport configuration; its `registry` is replaced by `registry`.
    ///     Default ``SessionConfiguration/default``.
    ///   - registry: Serializers and content codings. Default ``SerializerRegistry/bundled()``.
    ///   - interceptor: Adapts and retries requests. Default `nil`.
    ///   - logger: Where the manager logs. Default ``silentLogger`` (nothing is written); pass
    ///     `Logger(label: "sluice.http")` to log through swift-log's bootstrapped handler (stderr when
    ///     swift-log was not bootstrapped).
    public convenience init(
        baseURL: URL? = nil, configuration: SessionConfiguration = .default, registry: SerializerRegistry = .bundled(),
        interceptor: (any RequestInterceptor)? = nil, logger: Logger = silentLogger
    ) {
        self.init(
            baseURL: baseURL, configuration: configuration, registry: registry, interceptor: interceptor,
            logger: logger, securityPolicy: nil)
    }

    /// A manager that sends its requests through `transport` instead of a session of its own: a cache
    /// in front of a session, a test double, any ``HTTPTransport``.
    ///
    /// - Parameters:
    ///   - baseURL: Where relative paths resolve. Default `nil`.
    ///   - transport: What sends the requests; its own configuration (timeouts, TLS, content codings)
    ///     applies.
    ///   - registry: Serializers for `Decodable` bodies. Default ``SerializerRegistry/bundled()``.
    ///   - interceptor: Adapts and retries requests. Default `nil`.
    ///   - logger: Where the manager logs. Default ``silentLogger``.
    ///   - completionQueue: Where completion handlers run. Default: a new serial queue of the
    ///     manager's own, as ``SessionConfiguration/completionQueue`` (not the main queue, which a Linux
    ///     program seldom runs).
    public convenience init(
        baseURL: URL? = nil, transport: any HTTPTransport, registry: SerializerRegistry = .bundled(),
        interceptor: (any RequestInterceptor)? = nil, logger: Logger = silentLogger,
        completionQueue: DispatchQueue = DispatchQueue(label: "org.sluice.completion")
    ) {
        self.init(
            transport: transport, session: nil, completionQueue: completionQueue, baseURL: baseURL, registry: registry,
            interceptor: interceptor, logger: logger, securityPolicy: nil)
    }

    /// A manager that sends through `session`, with everything the session was made with: its
    /// configuration (timeouts, TLS settings — from the security policy it was configured with, if any —
    /// default headers, codings), its layers (every request the manager sends goes down the session's
    /// pipeline, as the session's own calls do), its event monitors and its completion queue.
    ///
    /// ```swift
    /// var configuration = SessionConfiguration()
    /// configuration.layers = [HealthLayer()]
    /// let session = SessionManager(configuration: configuration)
    /// let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"), session: session)
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: Where relative paths resolve. Default `nil`.
    ///   - session: The session; ``session`` and ``transport`` are it.
    ///   - registry: Serializers for `Decodable` bodies. Default ``SerializerRegistry/bundled()``; the
    ///     session's own registry still decides its content codings.
    ///   - interceptor: Adapts and retries requests. Default `nil`.
    ///   - logger: Where the manager logs. Default ``silentLogger``.
    public convenience init(
        baseURL: URL? = nil, session: SessionManager, registry: SerializerRegistry = .bundled(),
        interceptor: (any RequestInterceptor)? = nil, logger: Logger = silentLogger
    ) {
        self.init(
            transport: session, session: session, completionQueue: session.configuration.completionQueue,
            baseURL: baseURL, registry: registry, interceptor: interceptor, logger: logger, securityPolicy: nil)
    }

    private convenience init(
        baseURL: URL?, configuration: SessionConfiguration, registry: SerializerRegistry,
        interceptor: (any RequestInterceptor)?, logger: Logger, securityPolicy: SecurityPolicy?
    ) {
        var configuration = configuration
        configuration.registry = registry
        let session = SessionManager(configuration: configuration)
        self.init(
            transport: session, session: session, completionQueue: configuration.completionQueue, baseURL: baseURL,
            registry: registry, interceptor: interceptor, logger: logger, securityPolicy: securityPolicy)
    }

    private init(
        transport: any HTTPTransport, session: SessionManager?, completionQueue: DispatchQueue, baseURL: URL?,
        registry: SerializerRegistry, interceptor: (any RequestInterceptor)?, logger: Logger, securityPolicy: SecurityPolicy?
    ) {
        self.baseURL = baseURL.map(Self.normalized)
        self.transport = transport
        self.session = session
        self.registry = registry
        self.logger = logger
        self.reachabilityManager = .shared
        self.securityPolicy = securityPolicy
        self.completionQueue = completionQueue
        self.settings = Locked(Settings(
            requestSerializer: HTTPRequestSerializer(), responseSerializer: JSONResponseSerializer(),
            interceptor: interceptor))
    }

    /// Builds requests. Default ``HTTPRequestSerializer``; ``JSONRequestSerializer`` sends JSON bodies.
    public var requestSerializer: any RequestSerializer {
        get { settings.withLock { $0.requestSerializer } }
        set { settings.withLock { $0.requestSerializer = newValue } }
    }

    /// Turns responses into values for the verbs without an explicit type. Default ``JSONResponseSerializer``.
    public var responseSerializer: any ResponseSerializer {
        get { settings.withLock { $0.responseSerializer } }
        set { settings.withLock { $0.responseSerializer = newValue } }
    }

    /// Adapts each attempt and decides about retries. Default `nil`.
    public var interceptor: (any RequestInterceptor)? {
        get { settings.withLock { $0.interceptor } }
        set { settings.withLock { $0.interceptor = newValue } }
    }

    /// `url` with a trailing `/` when its path is not empty, as AFNetworking does with base URLs.
    static func normalized(_ url: URL) -> URL {
        guard !url.path.isEmpty, !url.absoluteString.hasSuffix("/") else { return url }
        return url.appendingPathComponent("")
    }

    // MARK: Building requests

    /// The request for `method` and `urlString` (relative to ``baseURL``) with `parameters` serialized by
    /// the request serializer and `headers` set on it; a header given here replaces the serializer's
    /// default of the same name.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL``, or what the serializer throws.
    public func request(
        _ method: HTTPMethod, _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) throws(SluiceError) -> HTTPRequest {
        let serializer = requestSerializer
        var request = try serializer.makeRequest(method: method, urlString: urlString, relativeTo: baseURL)
        Self.apply(headers, to: &request)
        return try serializer.serialize(request, with: parameters)
    }

    /// A multipart request: `parameters` as form fields, then the parts `constructingBody` appends.
    ///
    /// - Throws: As ``RequestSerializer/multipartFormRequest(method:urlString:relativeTo:parameters:boundary:constructingBody:)``.
    public func multipartRequest(
        _ urlString: String, method: HTTPMethod = .post, parameters: Parameters? = nil,
        headers: HTTPHeaders = HTTPHeaders(), constructingBody: (any MultipartFormData) throws -> Void
    ) throws(SluiceError) -> HTTPRequest {
        var request = try requestSerializer.multipartFormRequest(
            method: method, urlString: urlString, relativeTo: baseURL, parameters: parameters,
            constructingBody: constructingBody)
        Self.apply(headers, to: &request)
        return request
    }

    /// Sets `headers` on `request`, replacing headers of the same names.
    static func apply(_ headers: HTTPHeaders, to request: inout HTTPRequest) {
        for name in Set(headers.map { $0.name.lowercased() }) { request.headers.remove(name) }
        for header in headers { request.headers.add(header) }
    }
}
