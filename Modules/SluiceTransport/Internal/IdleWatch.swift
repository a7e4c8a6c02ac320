/// Tells when a transfer has moved no byte for its idle timeout, from byte counts sampled now and then.
/// A value with no I/O: the engine samples a transfer's counts and asks.
///
/// The clock runs only while the transfer can move bytes: a sample of `nil` (not connected yet,
/// suspended, paused for its reader or its paced body) stops it, and the next count starts it over. Any
/// change of the count, however small, starts it over too: the timeout is "no byte for N seconds",
/// not a rate (``MinimumTransferRate`` is the rate).
struct IdleWatch {
    /// Seconds without a byte after which the transfer is idle; 0 for never.
    let timeout: Double
    /// The count at the last sample, or -1 when the clock was stopped.
    private var count: Int64 = -1
    /// Since when ``count`` has stood still (set by the first sample: the clock starts stopped).
    private var since = MonotonicInstant(nanoseconds: 0)

    /// A watch for `timeout` seconds (negative means 0: never idle), its clock stopped until the first sample.
    init(timeout: Double) {
        self.timeout = max(0, timeout)
    }

    /// Stops the clock until the next sample (a new attempt begins).
    mutating func restart() { count = -1 }

    /// Takes a sample: the bytes moved so far both ways, or `nil` when the clock does not run. Returns
    /// whether the count has stood still for the whole timeout.
    mutating func isIdle(count sample: Int64?, at now: MonotonicInstant) -> Bool {
        guard timeout > 0 else { return false }
        guard let sample, sample >= 0, sample == count else {
            count = sample ?? -1
            since = now
            return false
        }
        let elapsed = now - since
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 >= timeout
    }
}
