import Synchronization

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
