import Foundation
@testable import SluiceTransport
import Testing

/// The transport's fixed-size clock reading, with no waiting beyond a few milliseconds.
@Suite("Monotonic instant")
struct MonotonicInstantTests {
    @Test("differences and offsets in whole nanoseconds, in order")
    func arithmetic() {
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        #expect(start + .milliseconds(1500) == MonotonicInstant(nanoseconds: 6_500_000_000))
        #expect(start + .seconds(-2) == MonotonicInstant(nanoseconds: 3_000_000_000))
        #expect((start + .nanoseconds(7)) - start == .nanoseconds(7))
        #expect(start - (start + .seconds(1)) == .seconds(-1))
        #expect(start < start + .nanoseconds(1))
    }

    @Test("an offset far beyond the clock's range saturates instead of wrapping")
    func saturation() {
        let start = MonotonicInstant(nanoseconds: 1)
        #expect(start + .seconds(Int64.max) > start)
        #expect(start + .seconds(Int64.min) < start)
        #expect(MonotonicInstant(nanoseconds: .max - 1) + .seconds(1) == MonotonicInstant(nanoseconds: .max))
    }

    @Test("it moves with ContinuousClock")
    func agreesWithContinuousClock() async throws {
        // Each of our readings is taken between two of ContinuousClock's.
        let startBefore = ContinuousClock.now
        let ours = MonotonicInstant.now
        let startAfter = ContinuousClock.now
        // Time passing is what is measured here, not a wait for something.
        try await Task.sleep(for: .milliseconds(20))
        let endBefore = ContinuousClock.now
        let oursEnd = MonotonicInstant.now
        let endAfter = ContinuousClock.now
        let oursElapsed = oursEnd - ours
        // At least the sleep, which a loaded machine only lengthens.
        #expect(oursElapsed >= .milliseconds(20))
        // Both read the same clock: our span lies between the shortest and the longest span theirs can
        // have around it, however long the machine took between the reads.
        #expect(oursElapsed >= endBefore - startAfter, "\(oursElapsed) < \(endBefore - startAfter)")
        #expect(oursElapsed <= endAfter - startBefore, "\(oursElapsed) > \(endAfter - startBefore)")
    }
}
