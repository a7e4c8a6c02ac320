/// What a manager watches.
enum ReachabilityTarget: Sendable, Hashable, CustomStringConvertible {
    /// Any usable network: the route the kernel would use for public destinations.
    case defaultRoute
    /// A host name (or IP literal), resolved, then routed.
    case host(String)
    /// One address.
    case address(NetworkReachabilityManager.SocketAddress)

    /// Whether evaluating needs a name lookup that can block for long (a host name that is neither
    /// an IP literal nor a name RFC 6761 answers locally).
    var needsNameResolution: Bool {
        guard case .host(let name) = self else { return false }
        if (try? NetworkReachabilityManager.SocketAddress(name)) != nil { return false }
        var lowered = name.lowercased()
        if lowered.hasSuffix(".") { lowered.removeLast() }
        let reserved = ["localhost", "invalid"]
        return !reserved.contains { lowered == $0 || lowered.hasSuffix(".\($0)") }
    }

    /// `default route`, `host <name>` or `address <address>`.
    var description: String {
        switch self {
        case .defaultRoute: "default route"
        case .host(let name): "host \(name)"
        case .address(let address): "address \(address.ipAddress)"
        }
    }
}
