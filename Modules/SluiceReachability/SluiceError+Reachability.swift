import SluiceCore

extension SluiceError.Code {
    /// The rtnetlink socket (`AF_NETLINK`, `NETLINK_ROUTE`) could not be opened, bound or configured,
    /// for example in a sandbox that forbids netlink; ``SluiceError/library`` holds the `errno`.
    public static let reachabilityNetlinkUnavailable: Self = "reachability.netlinkUnavailable"
    /// The thread that watches the network could not be started; ``SluiceError/library`` holds the
    /// `pthread_create` result.
    public static let reachabilityThreadFailed: Self = "reachability.threadFailed"
    /// Text given as an address is not an IPv4 or IPv6 address, a byte count is not 4 or 16, or an
    /// IPv6 zone names no interface.
    public static let reachabilityInvalidAddress: Self = "reachability.invalidAddress"
}
