/// The netlink datagram parser, for the fuzz targets of `Tools/Fuzz`; not for general use.
@_spi(Fuzzing)
public enum NetlinkReading {
    /// Parses `datagram` as the reachability monitor parses what the kernel sends.
    ///
    /// - Returns: How many well-formed messages it holds, and how many of them can change reachability.
    public static func read(_ datagram: [UInt8]) -> (messages: Int, affectingReachability: Int) {
        let messages = NetlinkParser.messages(in: datagram)
        return (messages.count, messages.count(where: \.affectsReachability))
    }
}
