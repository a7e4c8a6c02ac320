/// Where a response came from: what URLSession calls a transaction's `resourceFetchType`.
public enum ResponseSource: Sendable, Hashable, CustomStringConvertible {
    /// The network: one exchange on a connection.
    case network
    /// A stored response, used without asking the server.
    case cache
    /// A stored response the server confirmed (`304 Not Modified`) before it was used.
    case revalidatedCache
    /// A stored response past its freshness, used without the server's word: allowed by
    /// `stale-while-revalidate` (it is revalidated in the background), `stale-if-error` (the server
    /// failed), the request's `max-stale`, or a cache policy that takes stored data whatever its age.
    case staleCache
    /// A layer's own answer (a stub, a synthesized response), named by the layer.
    case layer(String)

    /// `network`, `cache`, `revalidated cache`, `stale cache` or `layer NAME`.
    public var description: String {
        switch self {
        case .network: "network"
        case .cache: "cache"
        case .revalidatedCache: "revalidated cache"
        case .staleCache: "stale cache"
        case .layer(let name): "layer \(name)"
        }
    }

    /// Whether the response came over the network (``network`` or ``revalidatedCache``).
    public var usedNetwork: Bool {
        switch self {
        case .network, .revalidatedCache: true
        case .cache, .staleCache, .layer: false
        }
    }
}
