import Dispatch
import Foundation
import SluiceCore

/// How a ``SessionManager`` connects: timeouts, connection limits, protocol version, default headers,
/// cookies, proxy, redirects, TLS, the content codings it accepts, and where completions run.
public struct SessionConfiguration: Sendable {
    /// The HTTP version a session prefers.
    public enum HTTPVersionPreference: Sendable, Hashable {
        /// HTTP/1.1 only.
        case http1_1
        /// HTTP/2 over TLS (negotiated with ALPN), HTTP/1.1 over plain connections. The default.
        case http2OverTLS
        /// HTTP/2 everywhere: ALPN over TLS, prior knowledge over plain connections.
        case http2
    }

    /// Seconds allowed to establish a connection (TCP and TLS). Default 30.
    public var connectTimeout: TimeInterval = 30
    /// Seconds a transfer may go without moving a byte before it fails; a request's own
    /// ``HTTPRequest/timeout`` replaces it. Default 60 (AFNetworking's `timeoutInterval`).
    public var idleTimeout: TimeInterval = 60
    /// Seconds a whole task may take from its start — redirects, authentication rounds and suspensions
    /// included — or `nil` for no limit. Default 7 days (604,800 s, URLSession's
    /// `timeoutIntervalForResource`), so that no task runs forever.
    ///
    /// A server that sends a byte now and then keeps a task alive under the ``idleTimeout``; this ends
    /// it in the end, and ``minimumTransferRate`` ends it early. See docs/transport.md, "Timeouts", for
    /// the defaults beside URLSession's and async-http-client's.
    public var resourceTimeout: TimeInterval? = 7 * 24 * 3600
    /// The slowest a transfer may move for a whole window before it fails with
    /// ``SluiceError/Code/transferTooSlow`` (libcurl's low-speed limit), or `nil` for no such check.
    /// Unlike ``idleTimeout``, which any byte resets, this ends a server that trickles a byte every few
    /// seconds. A suspended transfer, or one paused because its stream's reader is behind, is not
    /// measured. Default `nil`: long polls and event streams may rightly be slow.
    public var minimumTransferRate: MinimumTransferRate?
    /// Interim (`1xx`) responses one request may receive before its final response; one more fails the
    /// task with ``SluiceError/Code/invalidResponse``, so endless `102 Processing` answers cannot keep a
    /// task alive. Default 32.
    public var maximumInterimResponses = 32
    /// Connections kept open to one host, or `0` for no limit. Default 6.
    public var maximumConnectionsPerHost: Int = 6
    /// Connections open in total, or `0` for no limit. Default 0.
    public var maximumConnections: Int = 0
    /// The protocol version preferred. Default ``HTTPVersionPreference/http2OverTLS``.
    public var httpVersion: HTTPVersionPreference = .http2OverTLS
    /// Headers added to every request that does not set them. Default none.
    public var defaultHeaders = HTTPHeaders()
    /// Whether cookies are stored from responses and sent with requests (an in-memory store shared by
    /// the session's tasks); a request's ``HTTPRequest/shouldHandleCookies`` can turn them off for it.
    /// Default `true`.
    public var handlesCookies = true
    /// Where cookies are kept when ``handlesCookies`` is on: `nil` for libcurl's own in-memory store (one per
    /// session, which nothing can read); a ``CookieStorage`` (SluiceCookies' `CookieStore`: RFC 6265, readable,
    /// writable, saved to and loaded from curl's cookie file) replaces it, and sessions given the same
    /// instance share their cookies. The session asks it for each hop's `Cookie` field (in the bridge, so
    /// the layers below see it) and gives it each network answer's head. Default `nil`.
    public var cookieStorage: (any CookieStorage)?
    /// Whether and how requests use a proxy: the one the environment names (`http_proxy`,
    /// `https_proxy`, `all_proxy`, `no_proxy`, read when the session is made), none, or a given one
    /// (HTTP, HTTPS, SOCKS4, SOCKS5) with its credentials and bypass list. A request's own
    /// ``HTTPRequest/proxy`` replaces it for that request. Default ``ProxyChoice/environment``.
    public var proxy: ProxyChoice = .environment
    /// ``proxy`` as a URL such as `http://user:password@proxy.example:3128`: the URL of a given proxy,
    /// else `nil`. Setting a URL chooses that proxy; setting `nil` chooses ``ProxyChoice/environment``.
    /// Default `nil`.
    public var proxyURL: URL? {
        get {
            guard case .proxy(let proxy) = proxy else { return nil }
            return proxy.url
        }
        set { proxy = newValue.map { .proxy(Proxy(url: $0)) } ?? .environment }
    }
    /// Where and how connections are made: a Unix domain socket, host and port overrides, the local
    /// interface, the address family, `100-continue` for large bodies. A request's own
    /// ``HTTPRequest/connection`` replaces it for that request. Default ``ConnectionSettings/default``.
    public var connection: ConnectionSettings = .default
    /// A credential sent to every request's origin. Default `nil`.
    public var credential: Credential?
    /// Asked for a credential when a response is `401` and none was sent (or the one sent was
    /// refused), at most once per task. Default `nil`.
    public var authenticationChallengeHandler: AuthenticationChallengeHandler?
    /// What happens on a redirect. Default ``RedirectPolicy/follow(maximum:)`` with 16.
    public var redirectPolicy: RedirectPolicy = .follow()
    /// TLS settings for every host without an entry in ``tlsByHost``. Default ``TLSConfiguration/default``.
    public var tls: TLSConfiguration = .default
    /// TLS settings for particular hosts, by host name or address (IPv6 without brackets), compared
    /// without regard to case; a redirect to another host uses that host's settings. Default none.
    ///
    /// `SluiceSecurity`'s `ServerTrustManager` produces this map from per-host security policies.
    public var tlsByHost: [String: TLSConfiguration] = [:]
    /// Where content codings come from: `Accept-Encoding` lists what it holds, and bodies are decoded
    /// with them. Default: an empty registry (no content coding).
    public var registry = SerializerRegistry()
    /// Limits on decoded bodies that are collected in memory (data and upload tasks). Default
    /// ``ContentCodingLimits/inMemory``: 128 MiB, and 100:1 from 1 MiB on.
    public var contentCodingLimits: ContentCodingLimits = .inMemory
    /// Limits on decoded bodies written to a file (downloads) or read as a stream
    /// (``SessionManager/bytes(for:)``), which are never held whole. Default
    /// ``ContentCodingLimits/streaming``: no limit, so a large compressed download is not cut short.
    public var streamingContentCodingLimits: ContentCodingLimits = .streaming
    /// Whether tasks post AFNetworking-style notifications (`.sluiceTaskDidResume`, `.sluiceTaskDidSuspend`,
    /// `.sluiceTaskDidComplete`) on `NotificationCenter.default`. Off by default: posting costs about
    /// 8 µs per task even with no observer; ``EventMonitor``s are always told. Default `false`.
    public var postsTaskNotifications = false
    /// Where completion handlers run. Default: a serial queue of this configuration's own, as
    /// URLSession runs its callbacks on a serial queue of its own: handlers run one at a time, in the
    /// order their tasks completed, and never wait for the main queue.
    ///
    /// Not the main queue (AFNetworking's default on iOS): a Linux program seldom runs the main queue
    /// (`dispatchMain()`), and one that waits for a handler on the main thread (a semaphore in a
    /// non-async function called from an `@main async` program) would block it forever. Set `.main`
    /// where the main queue is serviced.
    public var completionQueue = DispatchQueue(label: "org.sluice.completion")
    /// Bytes a streaming response may buffer before the transfer is paused. Default 1 MiB.
    public var streamBufferLimit: Int = 1 << 20

    /// The caller's layers, at the top of the session's pipeline, top first: each sees every request
    /// sent through the session once, whichever API sent it, before redirects and authentication rounds
    /// are followed, and may answer it without the network (docs/transport.md). Default none.
    public var layers: [any HTTPLayer] = []
    /// The cache slot, below the bridge (so it sees each hop's request with the session's default
    /// headers and `Accept-Encoding`) and above the network layers: a layer that answers from storage,
    /// revalidates, or passes the hop on. Default `nil`: no cache.
    public var cache: (any HTTPLayer)?
    /// Layers just above the network, top first: each sees every hop (each redirect and authentication
    /// round) as it will be sent. Test stubs, tracing and metrics go here. Default none.
    public var networkLayers: [any HTTPLayer] = []

    /// Creates a configuration with the defaults.
    public init() {}

    /// The defaults.
    public static var `default`: SessionConfiguration { SessionConfiguration() }
}
