import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A barrier: `count` threads that call ``wait()`` are released together once the last arrives. The
/// thread-safety rule puts one before every call, so its threads enter the plugin at the same moment
/// instead of one after another as the scheduler happens to start them.
///
/// The waiting threads spin (yielding the processor to those not yet arrived) rather than sleep: a
/// sleeping thread wakes tens of microseconds after the release, long enough for a short call on another
/// thread to be over before it starts; spinning threads leave together.
final class ThreadBarrier: Sendable {
    private let count: Int
    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)

    init(count: Int) { self.count = count }

    /// Waits until every thread has arrived.
    func wait() {
        let current = generation.load(ordering: .acquiring)
        if arrived.add(1, ordering: .acquiringAndReleasing).newValue == count {
            arrived.store(0, ordering: .relaxed)
            generation.add(1, ordering: .releasing)
            return
        }
        while generation.load(ordering: .acquiring) == current { sched_yield() }
    }
}
