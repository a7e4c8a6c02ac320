import Foundation
import SluiceCore

/// A session's configuration, shared by reference among its transfers: a transfer then carries one
/// pointer instead of its own copy of the whole value (which also kept each transfer object out of the
/// allocator's fast size classes). Its TLS settings are turned into libcurl's terms here, once.
final class SharedConfiguration: Sendable {
    let value: SessionConfiguration
    /// The session's TLS settings as libcurl gets them.
    let tls: CurlTLSOptions
    /// The same for each host with settings of its own (``SessionConfiguration/tlsByHost``), by the
    /// host lowercased.
    private let tlsByHost: [String: CurlTLSOptions]
    /// The origins (`host:port`) whose clear-text HTTP/2 connections libcurl cannot reuse: the session
    /// gives each request to them a connection of its own (``Transfer``'s prior-knowledge workaround).
    private let priorKnowledgeReuseBroken = Locked<Set<String>>([])

    /// The proxy variables of the environment when the session was made (``ProxyChoice/environment``).
    let proxyEnvironment: ProxyRoute.Environment
    /// Whether that environment names a proxy for any scheme: without one, a request that follows the
    /// environment goes direct with nothing more to look at.
    let environmentNamesProxy: Bool

    /// Whether the session handles cookies and keeps them in its ``CookieStorage`` (the bridge adds and
    /// stores them), read once here: every request asks, and reading the storage copies an existential.
    let cookiesInStorage: Bool
    /// Whether the session handles cookies and leaves them to libcurl's own store (no storage given).
    let cookiesInLibcurl: Bool

    init(_ value: SessionConfiguration, proxyEnvironment: ProxyRoute.Environment = .current) {
        self.value = value
        cookiesInStorage = value.handlesCookies && value.cookieStorage != nil
        cookiesInLibcurl = value.handlesCookies && value.cookieStorage == nil
        self.proxyEnvironment = proxyEnvironment
        environmentNamesProxy = proxyEnvironment.namesProxy
        tls = CurlTLSOptions(value.tls)
        var byHost: [String: CurlTLSOptions] = [:]
        for (host, settings) in value.tlsByHost {
            // Of two names differing only in case, the one written in lowercase wins.
            let key = host.lowercased()
            if host == key || byHost[key] == nil { byHost[key] = CurlTLSOptions(settings) }
        }
        tlsByHost = byHost
    }

    /// Whether clear-text HTTP/2 connections to `origin` must not be reused.
    func avoidsReusingPriorKnowledge(to origin: String) -> Bool {
        priorKnowledgeReuseBroken.withLock { $0.contains(origin) }
    }

    /// Notes that libcurl failed to reuse a clear-text HTTP/2 connection to `origin`.
    func priorKnowledgeReuseFailed(to origin: String) {
        _ = priorKnowledgeReuseBroken.withLock { $0.insert(origin) }
    }

    /// The TLS settings for a request to `url`: its host's own (``SessionConfiguration/tlsByHost``),
    /// else the session's.
    func tls(for url: URL) -> CurlTLSOptions {
        guard !tlsByHost.isEmpty else { return tls }
        return tlsByHost[Transfer.hostName(url)] ?? tls
    }
}
