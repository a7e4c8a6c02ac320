/// Whether the network can be reached, and through which kind of interface.
public enum NetworkReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not known yet.
    case unknown
    /// No route to the destination.
    case notReachable
    /// Reachable through an interface of the given kind.
    case reachable(InterfaceKind)

    /// The kind of network interface a destination is reachable through.
    public enum InterfaceKind: String, Sendable, Hashable, CaseIterable {
        /// Wired Ethernet.
        case ethernet
        /// Wi-Fi.
        case wifi
        /// A cellular (WWAN) modem.
        case wwan
        /// The loopback interface.
        case loopback
        /// Any other kind: a bridge, tunnel, virtual Ethernet pair.
        case other
    }

    /// Whether the destination is reachable through any interface.
    public var isReachable: Bool { if case .reachable = self { true } else { false } }
    /// Whether it is reachable through Wi-Fi.
    public var isReachableViaWiFi: Bool { self == .reachable(.wifi) }
    /// Whether it is reachable through a cellular modem.
    public var isReachableViaWWAN: Bool { self == .reachable(.wwan) }
    /// Whether it is reachable through Ethernet.
    public var isReachableViaEthernet: Bool { self == .reachable(.ethernet) }
    /// Whether it is reachable through Ethernet or Wi-Fi (Alamofire's `isReachableOnEthernetOrWiFi`).
    public var isReachableOnEthernetOrWiFi: Bool { isReachableViaEthernet || isReachableViaWiFi }
    /// The kind of interface it is reachable through; `nil` when it is not reachable or not known.
    public var interfaceKind: InterfaceKind? { if case .reachable(let kind) = self { kind } else { nil } }

    /// The status as AFNetworking names it: `Unknown`, `Not Reachable`, `Reachable via WWAN`,
    /// `Reachable via WiFi`, and `Reachable via Ethernet`, `Reachable via Loopback` or `Reachable`.
    public var localizedDescription: String {
        switch self {
        case .unknown: "Unknown"
        case .notReachable: "Not Reachable"
        case .reachable(.wwan): "Reachable via WWAN"
        case .reachable(.wifi): "Reachable via WiFi"
        case .reachable(.ethernet): "Reachable via Ethernet"
        case .reachable(.loopback): "Reachable via Loopback"
        case .reachable(.other): "Reachable"
        }
    }

    /// ``localizedDescription``.
    public var description: String { localizedDescription }
}
