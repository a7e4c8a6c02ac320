#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A reading of the clock `ContinuousClock` reads (it runs on while the machine sleeps), in whole
/// nanoseconds: a value whose size every module knows.
///
/// `ContinuousClock.Instant` hides its layout outside the standard library, so a struct, a lock's state,
/// a class's fields or an async frame holding one is laid out at run time and copied through its
/// metadata: on the request path, where a call's start and a hop's settings carry an instant across
/// every suspension, that meant allocations and metadata lookups on every hop. The transport's own
/// timing uses this instead.
struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Nanoseconds since an arbitrary fixed point (the machine's boot).
    var nanoseconds: Int64

    /// The clock now.
    static var now: MonotonicInstant {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_BOOTTIME, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC, &time)
        #endif
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec))
    }

    static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The time from `rhs` to `lhs`.
    static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    /// The instant `duration` after `lhs` (whole nanoseconds; saturating far from now).
    static func + (lhs: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let delta = overflow ? (seconds < 0 ? Int64.min / 2 : Int64.max / 2) : scaled &+ attoseconds / 1_000_000_000
        let (sum, sumOverflow) = lhs.nanoseconds.addingReportingOverflow(delta)
        return MonotonicInstant(nanoseconds: sumOverflow ? (delta < 0 ? .min : .max) : sum)
    }
}
