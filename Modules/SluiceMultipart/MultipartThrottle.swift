/// Paces a multipart upload: at most ``packetSize`` bytes per read, then a pause of ``delay`` before
/// the next, as AFNetworking's `throttleBandwidthWithPacketSize:delay:` does for slow links.
///
/// The transport pauses the upload during the delay instead of blocking its thread, so other
/// transfers of the session keep running.
public struct MultipartThrottle: Sendable, Hashable {
    /// Bytes per packet; at least 1.
    public let packetSize: Int
    /// The pause after each packet; not negative.
    public let delay: Duration

    /// A throttle of `packetSize` bytes every `delay`.
    ///
    /// - Parameters:
    ///   - packetSize: Bytes per packet; values below 1 are taken as 1.
    ///   - delay: The pause after each packet; negative values are taken as zero.
    public init(packetSize: Int, delay: Duration) {
        self.packetSize = max(1, packetSize)
        self.delay = max(.zero, delay)
    }

    /// AFNetworking's suggestion for a 3G link: 16 KiB packets every 0.2 s (80 KiB/s).
    public static let suggestedFor3G = MultipartThrottle(packetSize: 16 * 1024, delay: .milliseconds(200))
}
