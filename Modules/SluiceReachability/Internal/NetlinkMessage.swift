/// One rtnetlink message, decoded: its header and the parts of its body reachability needs.
///
/// Produced by ``NetlinkParser`` from kernel datagrams; fields the kernel did not send are `nil`.
struct NetlinkMessage: Equatable, Sendable {
    /// `struct nlmsghdr`.
    struct Header: Equatable, Sendable {
        /// `nlmsg_len`: the message's length, header included.
        var length: UInt32
        /// `nlmsg_type`.
        var type: UInt16
        /// `nlmsg_flags`.
        var flags: UInt16
        /// `nlmsg_seq`: the sequence number of the request this answers, 0 for events.
        var sequence: UInt32
        /// `nlmsg_pid`: the port the message is addressed to or came from.
        var portID: UInt32
    }

    /// One `struct rtattr` / `struct nlattr`: a type and its payload.
    struct Attribute: Equatable, Sendable {
        /// The type, without the nested and byte-order flag bits.
        var type: UInt16
        /// Whether `NLA_F_NESTED` was set.
        var isNested: Bool
        /// The payload, without padding.
        var payload: [UInt8]
    }

    /// `RTM_NEWLINK` / `RTM_DELLINK`: `struct ifinfomsg` and the attributes used here.
    struct Link: Equatable, Sendable {
        /// `ifi_family`.
        var family: UInt8
        /// `ifi_type`: the `ARPHRD_*` hardware type.
        var hardwareType: UInt16
        /// `ifi_index`.
        var index: Int32
        /// `ifi_flags`: `IFF_*`.
        var flags: UInt32
        /// `ifi_change`.
        var change: UInt32
        /// `IFLA_IFNAME`.
        var name: String?
        /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO`: the driver of a virtual link (`veth`, `bridge`, ...).
        var kind: String?
        /// `IFLA_OPERSTATE`: the RFC 2863 operational state.
        var operationalState: UInt8?

        /// Administratively up (`IFF_UP`) and operationally up (`IFF_RUNNING`: carrier, not dormant).
        var isUsable: Bool {
            flags & Netlink.InterfaceFlags.up != 0 && flags & Netlink.InterfaceFlags.running != 0
        }
    }

    /// `RTM_NEWADDR` / `RTM_DELADDR`: `struct ifaddrmsg` and its addresses.
    struct Address: Equatable, Sendable {
        /// `ifa_family`.
        var family: UInt8
        /// `ifa_prefixlen`.
        var prefixLength: UInt8
        /// `ifa_flags`.
        var flags: UInt8
        /// `ifa_scope`.
        var scope: UInt8
        /// `ifa_index`: the interface.
        var index: UInt32
        /// `IFA_ADDRESS`.
        var address: [UInt8]?
        /// `IFA_LOCAL`.
        var local: [UInt8]?
    }

    /// `RTM_NEWROUTE` / `RTM_DELROUTE`: `struct rtmsg` and the attributes used here.
    struct Route: Equatable, Sendable {
        /// `rtm_family`.
        var family: UInt8
        /// `rtm_dst_len`: the destination prefix length; 0 for a default route.
        var destinationLength: UInt8
        /// `rtm_src_len`.
        var sourceLength: UInt8
        /// `rtm_tos`.
        var typeOfService: UInt8
        /// `rtm_table`.
        var table: UInt8
        /// `rtm_protocol`.
        var routingProtocol: UInt8
        /// `rtm_scope`.
        var scope: UInt8
        /// `rtm_type`: `RTN_*`.
        var type: UInt8
        /// `rtm_flags`.
        var flags: UInt32
        /// `RTA_DST`.
        var destination: [UInt8]?
        /// `RTA_GATEWAY`.
        var gateway: [UInt8]?
        /// `RTA_OIF`: the output interface's index.
        var outputInterface: UInt32?
        /// `RTA_TABLE`: the full table number.
        var tableID: UInt32?
    }

    /// What the message says.
    enum Payload: Equatable, Sendable {
        /// A link appeared, changed or (``NetlinkMessage/isDeletion``) went away.
        case link(Link)
        /// An address was added or removed.
        case address(Address)
        /// A route was added or removed, or the answer to a route lookup.
        case route(Route)
        /// `NLMSG_ERROR`: 0 for an acknowledgement, else a negative `errno`.
        case error(Int32)
        /// `NLMSG_DONE`: the end of a dump.
        case done
        /// `NLMSG_OVERRUN`: data was lost.
        case overrun
        /// A well-formed message of a type reachability does not read.
        case other
    }

    /// The header.
    var header: Header
    /// The decoded body.
    var payload: Payload

    /// Whether this is `RTM_DELLINK`, `RTM_DELADDR` or `RTM_DELROUTE`.
    var isDeletion: Bool {
        [Netlink.MessageType.deleteLink, Netlink.MessageType.deleteAddress, Netlink.MessageType.deleteRoute]
            .contains(header.type)
    }

    /// Whether the message reports a change that can alter reachability: a link, address or route
    /// message, or lost notifications.
    var affectsReachability: Bool {
        switch payload {
        case .link, .address, .route, .overrun: true
        case .error, .done, .other: false
        }
    }
}
