/// Writes rtnetlink messages: host-order integers, attributes padded to 4 bytes, and the header
/// whose length covers them.
struct NetlinkEncoder {
    /// The bytes written so far.
    private(set) var bytes: [UInt8] = []

    /// An empty encoder.
    init() {}

    /// Appends `value` in host byte order.
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Appends raw bytes.
    mutating func append(contentsOf raw: [UInt8]) { bytes.append(contentsOf: raw) }

    /// Appends zero bytes up to the next 4-byte boundary.
    mutating func pad() {
        bytes.append(contentsOf: repeatElement(0, count: Netlink.align(bytes.count) - bytes.count))
    }

    /// Appends an attribute (`rta_len`, `rta_type`, payload, padding).
    mutating func appendAttribute(type: UInt16, payload: [UInt8]) {
        append(UInt16(4 + payload.count))
        append(type)
        append(contentsOf: payload)
        pad()
    }

    /// Appends an attribute holding a host-order integer.
    mutating func appendAttribute<T: FixedWidthInteger>(type: UInt16, value: T) {
        var encoder = NetlinkEncoder()
        encoder.append(value)
        appendAttribute(type: type, payload: encoder.bytes)
    }

    /// A whole message: a header whose `nlmsg_len` is 16 plus the body's length, then the body.
    static func message(
        type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32 = 0, body: [UInt8]
    ) -> [UInt8] {
        var encoder = NetlinkEncoder()
        encoder.append(UInt32(Netlink.headerSize + body.count))
        encoder.append(type)
        encoder.append(flags)
        encoder.append(sequence)
        encoder.append(portID)
        encoder.append(contentsOf: body)
        return encoder.bytes
    }

    /// `RTM_GETROUTE` for one destination: the kernel answers with the route it would use
    /// (`RTM_NEWROUTE` with `RTA_OIF`) or an `NLMSG_ERROR` such as `-ENETUNREACH`. No packet is sent.
    ///
    /// An IPv6 address with a zone adds `RTA_OIF` so the lookup is made on that interface.
    static func routeLookup(to destination: NetworkReachabilityManager.SocketAddress, sequence: UInt32) -> [UInt8] {
        var body = NetlinkEncoder()
        let isIPv4 = destination.family == .ipv4
        body.append(isIPv4 ? Netlink.Family.ipv4 : Netlink.Family.ipv6)  // rtm_family
        body.append(UInt8(isIPv4 ? 32 : 128))  // rtm_dst_len
        body.append(UInt8(0))  // rtm_src_len
        body.append(UInt8(0))  // rtm_tos
        body.append(UInt8(0))  // rtm_table
        body.append(UInt8(0))  // rtm_protocol
        body.append(UInt8(0))  // rtm_scope
        body.append(UInt8(0))  // rtm_type
        body.append(UInt32(0))  // rtm_flags
        body.appendAttribute(type: Netlink.RouteAttribute.destination, payload: destination.bytes)
        if destination.scopeID != 0 {
            body.appendAttribute(type: Netlink.RouteAttribute.outputInterface, value: destination.scopeID)
        }
        return message(type: Netlink.MessageType.getRoute, flags: Netlink.Flags.request, sequence: sequence, body: body.bytes)
    }

    /// `IFLA_EXT_MASK`.
    static let extendedMaskAttribute: UInt16 = 29
    /// `RTEXT_FILTER_SKIP_STATS`: leave the statistics out of link answers.
    static let skipStatistics: UInt32 = 1 << 3

    /// `RTM_GETLINK` for one interface index: answered with `RTM_NEWLINK` or `-ENODEV`.
    static func linkQuery(index: Int32, sequence: UInt32) -> [UInt8] {
        var body = NetlinkEncoder()
        body.append(Netlink.Family.unspecified)  // ifi_family
        body.append(UInt8(0))  // padding
        body.append(UInt16(0))  // ifi_type
        body.append(index)  // ifi_index
        body.append(UInt32(0))  // ifi_flags
        body.append(UInt32(0))  // ifi_change
        body.appendAttribute(type: extendedMaskAttribute, value: skipStatistics)
        return message(type: Netlink.MessageType.getLink, flags: Netlink.Flags.request, sequence: sequence, body: body.bytes)
    }
}
