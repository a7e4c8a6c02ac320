import SluiceCore

/// Works out a target's status from the kernel's routing tables and interface states.
///
/// - A destination is reachable when the kernel has a unicast, local, broadcast, multicast or
///   anycast route to it (not blackhole, unreachable, prohibit or throw) and the route's output
///   interface is up and running (`IFF_UP` and `IFF_RUNNING`: it has carrier and is not dormant).
///   The status names the kind of that interface (``InterfaceClassifier``); a destination on this
///   machine goes out through `lo` and is reachable via loopback.
/// - The default route is checked by looking up ``defaultRouteProbes`` (`8.8.8.8`, then
///   `2001:4860:4860::8888`): the first that is reachable gives the status.
/// - A host is resolved (``HostResolver``); the first of its addresses that is reachable gives the
///   status. A name that does not resolve is not reachable. Answers are reused for
///   ``resolutionLifetime``; a name that failed to resolve is looked up again on every evaluation.
/// - When the kernel does not answer (a timeout), the status is ``NetworkReachabilityStatus/unknown``
///   unless another destination of the target is reachable.
///
/// Used by one thread at a time.
final class ReachabilityEvaluator {
    /// Public destinations whose routes stand for "the network": Google's public DNS addresses.
    /// Only the kernel's routing tables are consulted; nothing is sent to them.
    static let defaultRouteProbes: [NetworkReachabilityManager.SocketAddress] = [
        NetworkReachabilityManager.SocketAddress(ipv4: 8, 8, 8, 8),
        NetworkReachabilityManager.SocketAddress(
            family: .ipv6, bytes: [0x20, 0x01, 0x48, 0x60, 0x48, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x88], port: 0,
            scopeID: 0),
    ]

    /// How long a host name's addresses are reused before it is resolved again (30 s).
    static let resolutionLifetime: Duration = .seconds(30)

    /// What is watched.
    let target: ReachabilityTarget
    private let classifier: InterfaceClassifier
    private let querier: RouteQuerier
    private let resolve: @Sendable (String) -> [NetworkReachabilityManager.SocketAddress]
    private var resolved: (addresses: [NetworkReachabilityManager.SocketAddress], at: ContinuousClock.Instant)?

    /// An evaluator with its own query socket.
    ///
    /// - Parameters:
    ///   - target: What to evaluate.
    ///   - classifier: Names interface kinds. Default: sysfs at `/sys/class/net`.
    ///   - resolve: Turns a host name into addresses. Default ``HostResolver/addresses(of:)``.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityNetlinkUnavailable``.
    init(
        target: ReachabilityTarget, classifier: InterfaceClassifier = InterfaceClassifier(),
        resolve: @escaping @Sendable (String) -> [NetworkReachabilityManager.SocketAddress] = HostResolver.addresses(of:)
    ) throws(SluiceError) {
        self.target = target
        self.classifier = classifier
        self.resolve = resolve
        querier = try RouteQuerier()
    }

    /// The query socket's inode, 0 once closed.
    var inode: UInt64 { querier.inode }

    /// Closes the query socket.
    func close() { querier.close() }

    /// The target's status now.
    func evaluate() -> NetworkReachabilityStatus {
        switch target {
        case .defaultRoute: status(of: Self.defaultRouteProbes)
        case .address(let address): status(of: [address])
        case .host(let name): status(of: addresses(of: name))
        }
    }

    /// The first reachable destination's status; not reachable when none is, unknown when none is
    /// and the kernel failed to answer for one of them.
    func status(of destinations: [NetworkReachabilityManager.SocketAddress]) -> NetworkReachabilityStatus {
        var failed = false
        for destination in destinations {
            switch status(of: destination) {
            case .reachable(let kind): return .reachable(kind)
            case .unknown: failed = true
            case .notReachable: continue
            }
        }
        return failed ? .unknown : .notReachable
    }

    /// One destination's status.
    func status(of destination: NetworkReachabilityManager.SocketAddress) -> NetworkReachabilityStatus {
        let route: NetlinkMessage.Route
        switch querier.route(to: destination) {
        case .route(let answer): route = answer
        case .noRoute: return .notReachable
        case .failed: return .unknown
        }
        let deliverable: [UInt8] = [
            Netlink.RouteType.unicast, Netlink.RouteType.local, Netlink.RouteType.broadcast,
            Netlink.RouteType.multicast, Netlink.RouteType.anycast,
        ]
        guard deliverable.contains(route.type), let index = route.outputInterface, index != 0,
            let interface = Int32(exactly: index)
        else { return .notReachable }
        switch querier.link(index: interface) {
        case .link(let link): return link.isUsable ? .reachable(classifier.kind(of: link)) : .notReachable
        case .missing: return .notReachable
        case .failed: return .unknown
        }
    }

    /// The addresses of `name`, resolved again when the last answer is older than
    /// ``resolutionLifetime`` or was empty.
    private func addresses(of name: String) -> [NetworkReachabilityManager.SocketAddress] {
        let now = ContinuousClock.now
        if let resolved, !resolved.addresses.isEmpty, now - resolved.at < Self.resolutionLifetime {
            return resolved.addresses
        }
        let addresses = resolve(name)
        resolved = (addresses, now)
        return addresses
    }
}
