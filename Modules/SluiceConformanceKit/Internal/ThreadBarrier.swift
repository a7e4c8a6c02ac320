import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A POSIX barrier: `count` threads that call ``wait()`` are released together once the last arrives.
/// The thread-safety rule puts one before every call, so its threads enter the plugin at the same
/// moment instead of one after another as the scheduler happens to start them.
final class ThreadBarrier: @unchecked Sendable {
    private let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)

    init(count: Int) {
        pthread_barrier_init(barrier, nil, UInt32(count))
    }

    deinit {
        pthread_barrier_destroy(barrier)
        barrier.deallocate()
    }

    /// Waits until every thread has arrived.
    func wait() { pthread_barrier_wait(barrier) }
}

/// How many calls are in flight, and the most that were at once.
final class InFlightCounter: Sendable {
    private let now = Atomic<Int>(0)
    private let highest = Atomic<Int>(0)

    /// A call starts.
    func enter() {
        let count = now.add(1, ordering: .relaxed).newValue
        var seen = highest.load(ordering: .relaxed)
        while count > seen {
            let (exchanged, original) = highest.compareExchange(expected: seen, desired: count, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    /// A call ended.
    func leave() { now.subtract(1, ordering: .relaxed) }

    /// The most calls that were in flight at once.
    var most: Int { highest.load(ordering: .relaxed) }
}
