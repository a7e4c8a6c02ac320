import SluiceCore

extension NetworkReachabilityManager {
    /// An IPv4 or IPv6 address whose reachability a manager watches, with an optional port and
    /// IPv6 zone, like the `sockaddr` AFNetworking's `managerForAddress:` takes.
    ///
    /// Only the address and the zone matter for reachability; the port is kept for callers that
    /// build addresses from endpoints.
    ///
    /// ```swift
    /// let gateway = try NetworkReachabilityManager.SocketAddress("192.168.1.1")
    /// let manager = NetworkReachabilityManager(address: gateway)
    /// ```
    public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
        /// The address family.
        public enum Family: Sendable, Hashable {
            /// IPv4: 4 bytes.
            case ipv4
            /// IPv6: 16 bytes.
            case ipv6
        }

        /// The family: IPv4 or IPv6.
        public let family: Family
        /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
        public let bytes: [UInt8]
        /// The port. Default 0; it plays no part in reachability.
        public var port: UInt16
        /// The IPv6 zone: the index of the interface a link-local address belongs to. 0 (the default)
        /// for none; always 0 for IPv4.
        public let scopeID: UInt32

        /// Parses an address written as text.
        ///
        /// Accepts dotted-quad IPv4 (`192.0.2.1`) and IPv6 (`2001:db8::1`, `::ffff:192.0.2.1`),
        /// optionally in brackets (`[::1]`) and, for IPv6, with a zone after `%`: an interface name
        /// in this network namespace (`fe80::1%eth0`) or an index (`fe80::1%2`).
        ///
        /// - Parameters:
        ///   - text: The address.
        ///   - port: The port. Default 0.
        /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityInvalidAddress`` when the
        ///   text is neither form, or the zone names no interface.
        public init(_ text: String, port: UInt16 = 0) throws(SluiceError) {
            var address = Substring(text)
            if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
            if let bytes = AddressText.ipv4Bytes(String(address)) {
                self.init(family: .ipv4, bytes: bytes, port: port, scopeID: 0)
                return
            }
            var scopeID: UInt32 = 0
            if let percent = address.firstIndex(of: "%") {
                let zone = String(address[address.index(after: percent)...])
                guard let index = AddressText.zoneIndex(zone) else {
                    throw SluiceError(.reachabilityInvalidAddress, "the IPv6 zone \"\(zone)\" names no interface")
                }
                scopeID = index
                address = address[..<percent]
            }
            guard let bytes = AddressText.ipv6Bytes(String(address)) else {
                throw SluiceError(.reachabilityInvalidAddress, "\"\(text)\" is not an IPv4 or IPv6 address")
            }
            self.init(family: .ipv6, bytes: bytes, port: port, scopeID: scopeID)
        }

        /// An IPv4 address from its four bytes, most significant first:
        /// `SocketAddress(ipv4: 192, 168, 0, 1)` is `192.168.0.1`.
        ///
        /// - Parameters:
        ///   - a: The first byte, the most significant.
        ///   - b: The second byte.
        ///   - c: The third byte.
        ///   - d: The fourth byte, the least significant.
        ///   - port: The port. Default 0.
        public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16 = 0) {
            self.init(family: .ipv4, bytes: [a, b, c, d], port: port, scopeID: 0)
        }

        /// An address from its bytes in network order: 4 for IPv4, 16 for IPv6.
        ///
        /// - Parameters:
        ///   - bytes: The address.
        ///   - port: The port. Default 0.
        ///   - scopeID: The IPv6 zone's interface index. Default 0 (none); ignored for IPv4.
        /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityInvalidAddress`` when there
        ///   are not 4 or 16 bytes.
        public init(bytes: [UInt8], port: UInt16 = 0, scopeID: UInt32 = 0) throws(SluiceError) {
            switch bytes.count {
            case 4: self.init(family: .ipv4, bytes: bytes, port: port, scopeID: 0)
            case 16: self.init(family: .ipv6, bytes: bytes, port: port, scopeID: scopeID)
            default:
                throw SluiceError(.reachabilityInvalidAddress, "an address has 4 or 16 bytes, not \(bytes.count)")
            }
        }

        init(family: Family, bytes: [UInt8], port: UInt16, scopeID: UInt32) {
            self.family = family
            self.bytes = bytes
            self.port = port
            self.scopeID = scopeID
        }

        /// `127.0.0.1`.
        public static let ipv4Loopback = SocketAddress(ipv4: 127, 0, 0, 1)
        /// `::1`.
        public static let ipv6Loopback = SocketAddress(family: .ipv6, bytes: Array(repeating: 0, count: 15) + [1], port: 0, scopeID: 0)

        /// The address as text, with its zone when it has one: `192.0.2.1`, `fe80::1%eth0`.
        public var ipAddress: String {
            let text = AddressText.text(bytes)
            return scopeID == 0 ? text : "\(text)%\(AddressText.zoneName(scopeID))"
        }

        /// ``ipAddress``, followed by `:port` (IPv6 in brackets) when the port is not 0.
        public var description: String {
            guard port != 0 else { return ipAddress }
            return family == .ipv4 ? "\(ipAddress):\(port)" : "[\(ipAddress)]:\(port)"
        }
    }
}
