/// The rtnetlink numbers Sluice uses, from `<linux/netlink.h>`, `<linux/rtnetlink.h>`,
/// `<linux/if_link.h>`, `<linux/if_addr.h>`, `<linux/if_arp.h>` and `<net/if.h>`.
///
/// Glibc's module map does not export the Linux UAPI headers, so the values are written out here.
/// They are part of the kernel's stable user-space ABI.
enum Netlink {
    /// `AF_NETLINK`.
    static let addressFamily: Int32 = 16
    /// `NETLINK_ROUTE`: the routing and link protocol.
    static let routeProtocol: Int32 = 0
    /// `sizeof(struct nlmsghdr)`.
    static let headerSize = 16
    /// `sizeof(struct sockaddr_nl)`.
    static let socketAddressSize = 12

    /// `NLMSG_ALIGN`: netlink messages and attributes start on 4-byte boundaries.
    static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    /// Message types (`nlmsg_type`).
    enum MessageType {
        static let noop: UInt16 = 1
        static let error: UInt16 = 2
        static let done: UInt16 = 3
        static let overrun: UInt16 = 4
        static let newLink: UInt16 = 16
        static let deleteLink: UInt16 = 17
        static let getLink: UInt16 = 18
        static let newAddress: UInt16 = 20
        static let deleteAddress: UInt16 = 21
        static let newRoute: UInt16 = 24
        static let deleteRoute: UInt16 = 25
        static let getRoute: UInt16 = 26
    }

    /// Message flags (`nlmsg_flags`).
    enum Flags {
        static let request: UInt16 = 0x1
        static let multipart: UInt16 = 0x2
        static let acknowledge: UInt16 = 0x4
    }

    /// Multicast groups (`RTMGRP_*`) a monitor subscribes to.
    enum Group {
        static let link: UInt32 = 0x1
        static let ipv4Address: UInt32 = 0x10
        static let ipv4Route: UInt32 = 0x40
        static let ipv6Address: UInt32 = 0x100
        static let ipv6Route: UInt32 = 0x400
        /// Links, IPv4 and IPv6 addresses and routes.
        static let reachability: UInt32 = link | ipv4Address | ipv4Route | ipv6Address | ipv6Route
    }

    /// Attribute type bits that are flags, not part of the type (`NLA_F_NESTED`, `NLA_F_NET_BYTEORDER`).
    static let attributeFlagMask: UInt16 = 0xC000

    /// `IFLA_*` link attributes.
    enum LinkAttribute {
        static let name: UInt16 = 3
        static let operationalState: UInt16 = 16
        static let linkInfo: UInt16 = 18
        /// `IFLA_INFO_KIND`, inside `IFLA_LINKINFO`.
        static let infoKind: UInt16 = 1
    }

    /// `IFA_*` address attributes.
    enum AddressAttribute {
        static let address: UInt16 = 1
        static let local: UInt16 = 2
        static let label: UInt16 = 3
    }

    /// `RTA_*` route attributes.
    enum RouteAttribute {
        static let destination: UInt16 = 1
        static let outputInterface: UInt16 = 4
        static let gateway: UInt16 = 5
        static let preferredSource: UInt16 = 7
        static let table: UInt16 = 15
    }

    /// Route types (`rtm_type`, `RTN_*`).
    enum RouteType {
        static let unicast: UInt8 = 1
        static let local: UInt8 = 2
        static let broadcast: UInt8 = 3
        static let anycast: UInt8 = 4
        static let multicast: UInt8 = 5
        static let blackhole: UInt8 = 6
        static let unreachable: UInt8 = 7
        static let prohibit: UInt8 = 8
        static let `throw`: UInt8 = 9
    }

    /// Interface flags (`ifi_flags`, `IFF_*`).
    enum InterfaceFlags {
        static let up: UInt32 = 0x1
        static let loopback: UInt32 = 0x8
        static let running: UInt32 = 0x40
        static let lowerUp: UInt32 = 0x10000
    }

    /// Hardware types (`ifi_type`, `ARPHRD_*`).
    enum HardwareType {
        static let ether: UInt16 = 1
        static let ppp: UInt16 = 512
        static let rawIP: UInt16 = 519
        static let loopback: UInt16 = 772
        static let ieee80211: UInt16 = 801
        static let ieee80211Prism: UInt16 = 802
        static let ieee80211Radiotap: UInt16 = 803
        static let none: UInt16 = 0xFFFE
    }

    /// Address families in message bodies.
    enum Family {
        static let unspecified: UInt8 = 0
        static let ipv4: UInt8 = 2
        static let ipv6: UInt8 = 10
    }
}
