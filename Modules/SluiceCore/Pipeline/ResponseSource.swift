/// Where a response came from: what URLSession calls a transaction's `resourceFetchType`.
public enum ResponseSource: Sendable, Hashable, CustomStringConvertible {
    /// The network: one exchange on a connection.
    case network
    /// A stored response, used without asking the server.
    case cache
    /// A stored response the server confirmed (`304 Not Modified`) before it was used.
    case revalidatedCache
    /// A layer's own answer (a stub, a synthesized response), named by the layer.
    case layer(String)

    /// `network`, `cache`, `revalidated cache` or `layer NAME`.
    public var description: String {
        switch self {
        case .network: "network"
        case .cache: "cache"
        case .revalidatedCache: "revalidated cache"
        case .layer(let name): "layer \(name)"
        }
    }

    /// Whether the response came over the network (``network`` or ``revalidatedCache``).
    public var usedNetwork: Bool {
        switch self {
        case .network, .revalidatedCache: true
        case .cache, .layer: false
        }
    }
}
