import Foundation

/// The slowest a transfer may move, on average over a window, before it fails: libcurl's low-speed
/// limit (`CURLOPT_LOW_SPEED_LIMIT` and `CURLOPT_LOW_SPEED_TIME`), set through
/// ``SessionConfiguration/minimumTransferRate``.
///
/// A transfer whose rate stays below ``bytesPerSecond`` for ``window`` seconds fails with
/// ``SluiceError/Code/transferTooSlow``. libcurl measures in whole seconds: the window is rounded up.
public struct MinimumTransferRate: Sendable, Hashable {
    /// The rate, in bytes per second, below which the window starts counting. At least 1.
    public var bytesPerSecond: Int
    /// Seconds the rate may stay below ``bytesPerSecond`` before the transfer fails. At least 1.
    public var window: TimeInterval

    /// Creates a limit; values below 1 are raised to 1.
    ///
    /// - Parameters:
    ///   - bytesPerSecond: The slowest acceptable rate.
    ///   - window: How long the rate may stay below it, in seconds (rounded up to whole seconds).
    public init(bytesPerSecond: Int, window: TimeInterval) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.window = window.isFinite ? max(1, window) : 1
    }

    /// The window in whole seconds, as libcurl takes it.
    var wholeSeconds: Int { Int(min(window.rounded(.up), Double(Int32.max))) }
}
