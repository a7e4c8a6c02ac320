import Dispatch
import Foundation
import SluiceCore

/// Watches whether the network, a host or an address can be reached, and through which kind of
/// interface: Sluice's `AFNetworkReachabilityManager` for Linux.
///
/// A manager watches one target:
///
/// - ``init()`` and ``shared``: any usable network. Reachable when the kernel would route public
///   destinations (`8.8.8.8`, else `2001:4860:4860::8888`) through an interface that is up and has
///   carrier. No packet is sent: the routing tables are asked.
/// - ``init(host:)``: a host name, resolved with `getaddrinfo`, then routed like an address.
/// - ``init(address:)``: one IPv4 or IPv6 address.
///
/// Monitoring is event-driven: a thread waits on an rtnetlink socket for link, address and route
/// changes and re-checks the target after each, so a change shows within milliseconds and nothing
/// polls. ``startMonitoring(queue:onChange:)`` reports the current status at once, then every
/// change, three ways: the closure (on the queue you choose), every ``statusUpdates`` stream, and the
/// `Notification.Name.sluiceNetworkReachabilityDidChange` notification (posted on that
/// queue, with the status under ``statusUserInfoKey``).
///
/// ```swift
/// let manager = NetworkReachabilityManager.shared
/// try manager.startMonitoring { status in
///     print(status)                       // "Reachable via Ethernet", "Not Reachable", ...
/// }
/// for await status in manager.statusUpdates where status.isReachable {
///     break                               // the network is back
/// }
/// ```
///
/// A manager may be used from any thread. Releasing one that is monitoring stops it: its thread
/// ends and its sockets are closed. The closure is kept until replaced, so a closure that captures
/// its manager keeps it alive (as with AFNetworking's block): capture it weakly.
public final class NetworkReachabilityManager: Sendable {
    /// A closure that receives statuses.
    public typealias Listener = @Sendable (NetworkReachabilityStatus) -> Void

    /// The shared manager for any usable network, like AFNetworking's `sharedManager`.
    ///
    /// It does not monitor until ``startMonitoring(queue:onChange:)`` is called.
    public static let shared = NetworkReachabilityManager()

    private struct State: Sendable {
        var status = NetworkReachabilityStatus.unknown
        var monitor: ReachabilityMonitor?
        /// Increases on every start and stop; reports of an earlier monitoring run are dropped.
        var generation: UInt64 = 0
        var queue: DispatchQueue
        var listener: Listener?
        var continuations: [UInt64: AsyncStream<NetworkReachabilityStatus>.Continuation] = [:]
        var nextContinuationID: UInt64 = 0
    }

    /// What this manager watches.
    let target: ReachabilityTarget
    private let classifier: InterfaceClassifier
    private let state: Locked<State>
    /// Where statuses go when ``startMonitoring(queue:onChange:)`` is given no queue: a serial queue of
    /// this manager's own.
    private let ownQueue = DispatchQueue(label: "org.sluice.reachability")

    /// A manager for any usable network (the default route), like AFNetworking's `manager`.
    public convenience init() {
        self.init(target: .defaultRoute)
    }

    /// A manager for a host: its name is resolved with `getaddrinfo` (`/etc/hosts`, DNS, ...), and the
    /// host is reachable when one of its addresses is.
    ///
    /// The name is resolved when monitoring starts and again after a network change once the last
    /// answer is 30 seconds old, or whenever the last lookup failed. A name that does not resolve is
    /// ``NetworkReachabilityStatus/notReachable``. IP literals (`192.0.2.1`, `[::1]`) are used as
    /// they are; `localhost` and `*.localhost` are the loopback addresses and `*.invalid` never
    /// resolves, as RFC 6761 asks.
    ///
    /// - Parameter host: A host name or IP literal, for example `"www.example.com"`.
    /// - Returns: `nil` when `host` cannot be a host name: empty, longer than 253 bytes (254 with a
    ///   final dot), or holding whitespace, control characters or `/`.
    public convenience init?(host: String) {
        let length = host.utf8.count - (host.hasSuffix(".") ? 1 : 0)
        guard length > 0, length <= 253,
            !host.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F || $0 == "/" })
        else { return nil }
        self.init(target: .host(host))
    }

    /// A manager for one address, like AFNetworking's `managerForAddress:`.
    ///
    /// The address is reachable when the kernel has a route to it through an interface that is up
    /// and has carrier; an address of this machine is reachable via loopback.
    ///
    /// - Parameter address: The IPv4 or IPv6 address; its port plays no part.
    public convenience init(address: SocketAddress) {
        self.init(target: .address(address))
    }

    /// A manager for `target`, classifying interfaces with `classifier`.
    init(target: ReachabilityTarget, classifier: InterfaceClassifier = InterfaceClassifier()) {
        self.target = target
        self.classifier = classifier
        self.state = Locked(State(queue: ownQueue))
    }

    deinit {
        let (monitor, continuations) = state.withLock { state in
            let taken = (state.monitor, Array(state.continuations.values))
            state.monitor = nil
            state.continuations = [:]
            return taken
        }
        monitor?.stop()
        for continuation in continuations { continuation.finish() }
    }

    // MARK: Status

    /// The last status monitoring found. ``NetworkReachabilityStatus/unknown`` (the default) until
    /// monitoring reports its first status, and again after ``stopMonitoring()``.
    ///
    /// It changes as soon as the monitor finds a change, which may be before the closure and the
    /// notification for that change run on their queue.
    public var status: NetworkReachabilityStatus { state.withLock { $0.status } }

    /// Whether ``status`` is reachable through any interface. `false` while not monitoring.
    public var isReachable: Bool { status.isReachable }

    /// Whether ``status`` is reachable through a cellular (WWAN) modem. `false` while not monitoring.
    public var isReachableViaWWAN: Bool { status.isReachableViaWWAN }

    /// Whether ``status`` is reachable through Wi-Fi. `false` while not monitoring.
    public var isReachableViaWiFi: Bool { status.isReachableViaWiFi }

    /// Whether ``status`` is reachable through Ethernet or Wi-Fi, as Alamofire's
    /// `isReachableOnEthernetOrWiFi`. `false` while not monitoring.
    public var isReachableOnEthernetOrWiFi: Bool { status.isReachableOnEthernetOrWiFi }

    /// ``status`` as AFNetworking's `localizedNetworkReachabilityStatusString` names it:
    /// `Unknown`, `Not Reachable`, `Reachable via WiFi`, ... (see
    /// ``NetworkReachabilityStatus/localizedDescription``).
    public var localizedNetworkReachabilityStatusString: String { status.localizedDescription }

    /// Whether the manager is monitoring. `false` (the default) until
    /// ``startMonitoring(queue:onChange:)``, and after ``stopMonitoring()``.
    public var isMonitoring: Bool { state.withLock { $0.monitor != nil } }

    /// Works the status out now, without monitoring and without changing ``status``.
    ///
    /// Blocks while it asks the kernel (well under a millisecond) and, for a host name, while the
    /// name resolves (as long as the resolver takes). Returns ``NetworkReachabilityStatus/unknown``
    /// when the kernel does not answer within 2 seconds.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityNetlinkUnavailable`` when
    ///   the rtnetlink socket cannot be opened.
    public func checkStatus() throws(SluiceError) -> NetworkReachabilityStatus {
        let evaluator = try ReachabilityEvaluator(target: target, classifier: classifier)
        defer { evaluator.close() }
        return evaluator.evaluate()
    }

    // MARK: Monitoring

    /// Sets the closure that receives each status, like AFNetworking's
    /// `setReachabilityStatusChangeBlock:`. `nil` (the default) removes it.
    ///
    /// It runs on the queue given to ``startMonitoring(queue:onChange:)`` (by default a serial queue of
    /// the manager's own).
    public func setReachabilityStatusChangeBlock(_ block: Listener?) {
        state.withLock { $0.listener = block }
    }

    /// Starts monitoring and reports the current status at once, then every change.
    ///
    /// Each status goes to the closure and then to the
    /// `Notification.Name.sluiceNetworkReachabilityDidChange` notification, both on
    /// `queue`, and to every ``statusUpdates`` stream. Statuses are delivered in order when `queue` is
    /// serial. Nothing is delivered after ``stopMonitoring()`` returns, even if it was already queued.
    ///
    /// For the default route and for addresses, ``status`` is current when this returns and the
    /// first status is already on its way; for a host name, the first status follows once the name
    /// has resolved. Calling this while monitoring restarts monitoring (and reports the current
    /// status again).
    ///
    /// - Parameters:
    ///   - queue: Where the closure runs and the notification is posted. Default `nil`: a serial queue of
    ///     the manager's own, not the main queue, which a Linux program seldom runs (as
    ///     `SessionConfiguration.completionQueue`); pass `.main` where the main queue is serviced.
    ///   - onChange: Replaces the closure set by ``setReachabilityStatusChangeBlock(_:)``. Default
    ///     `nil`: keep that closure.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityNetlinkUnavailable`` when
    ///   an rtnetlink socket cannot be opened, or ``SluiceError/Code/reachabilityThreadFailed`` when
    ///   the monitor thread cannot start. The manager is not monitoring then.
    public func startMonitoring(queue: DispatchQueue? = nil, onChange: Listener? = nil) throws(SluiceError) {
        let queue = queue ?? ownQueue
        let (generation, previous) = state.withLock { state in
            state.generation &+= 1
            state.queue = queue
            if let onChange { state.listener = onChange }
            let previous = state.monitor
            state.monitor = nil
            state.status = .unknown
            return (state.generation, previous)
        }
        previous?.stop()
        let monitor = try ReachabilityMonitor(target: target, classifier: classifier) { [weak self] status in
            self?.receive(status, generation: generation)
        }
        let installed = state.withLock { state in
            guard state.generation == generation else { return false }
            state.monitor = monitor
            return true
        }
        // A later start or stop on another thread won the race.
        guard installed else { return monitor.stop() }
        do throws(SluiceError) {
            try monitor.start(evaluatingFirstStatusNow: !target.needsNameResolution)
        } catch {
            state.withLock { state in
                if state.monitor === monitor { state.monitor = nil }
            }
            throw error
        }
    }

    /// Stops monitoring: the monitor thread ends and its rtnetlink sockets are closed before this
    /// returns, and nothing more is delivered. ``status`` becomes ``NetworkReachabilityStatus/unknown``.
    ///
    /// Does nothing when not monitoring. Monitoring can be started again. ``statusUpdates`` streams
    /// stay open (they finish when the manager is released).
    public func stopMonitoring() {
        let monitor = state.withLock { state in
            state.generation &+= 1
            state.status = .unknown
            let monitor = state.monitor
            state.monitor = nil
            return monitor
        }
        monitor?.stop()
    }

    /// A new stream of statuses: the current status first when monitoring has one, then each status
    /// monitoring reports, across stops and restarts.
    ///
    /// Each access returns a new stream; many may be open at once. A stream keeps the newest 64
    /// statuses its reader has not taken yet, and finishes when the manager is released. Iterating
    /// does not start monitoring.
    public var statusUpdates: AsyncStream<NetworkReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NetworkReachabilityStatus.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            defer { state.nextContinuationID &+= 1 }
            return state.nextContinuationID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        state.withLock { state in
            state.continuations[id] = continuation
            if state.monitor != nil, state.status != .unknown { continuation.yield(state.status) }
        }
        return stream
    }

    // MARK: Delivery

    /// Takes a status from the monitor of run `generation`: records it, hands it to the streams and
    /// queues the closure and the notification.
    private func receive(_ status: NetworkReachabilityStatus, generation: UInt64) {
        let delivery = state.withLock { state -> (DispatchQueue, [AsyncStream<NetworkReachabilityStatus>.Continuation])? in
            guard state.generation == generation, state.monitor != nil else { return nil }
            state.status = status
            return (state.queue, Array(state.continuations.values))
        }
        guard let (queue, continuations) = delivery else { return }
        for continuation in continuations { continuation.yield(status) }
        queue.async { [weak self] in self?.deliver(status, generation: generation) }
    }

    /// On the delivery queue: runs the closure and posts the notification, unless monitoring stopped
    /// or restarted since the status was found.
    private func deliver(_ status: NetworkReachabilityStatus, generation: UInt64) {
        let current: Listener?? = state.withLock { state in
            state.generation == generation && state.monitor != nil ? .some(state.listener) : .none
        }
        guard let listener = current else { return }
        listener?(status)
        NotificationCenter.default.post(
            name: .sluiceNetworkReachabilityDidChange, object: self, userInfo: [Self.statusUserInfoKey: status])
    }

    /// The running monitor, for tests.
    var monitor: ReachabilityMonitor? { state.withLock { $0.monitor } }
}
