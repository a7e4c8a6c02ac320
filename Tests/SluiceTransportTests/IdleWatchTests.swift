import Foundation
@testable import SluiceTransport
import Testing

/// The idle watch with no socket and no waiting: samples at chosen instants.
@Suite("Idle watch")
struct IdleWatchTests {
    private static let start = MonotonicInstant.now

    /// Samples `counts` at the given seconds after ``start`` and returns each verdict.
    private static func run(timeout: Double, _ samples: [(Double, Int64?)]) -> [Bool] {
        var watch = IdleWatch(timeout: timeout)
        return samples.map { seconds, count in watch.isIdle(count: count, at: start + .milliseconds(Int(seconds * 1000))) }
    }

    static let stillCases: [(Double, [(Double, Int64?)], [Bool])] = [
        (1.0, [(0.0, 10), (0.5, 10), (1.0, 10)], [false, false, true]),
        (1.0, [(0.0, 10), (0.9, 10)], [false, false]),
        (1.0, [(0.0, 10), (0.5, 11), (1.0, 11), (1.5, 11)], [false, false, false, true]),
        (2.0, [(0.0, 0), (1.0, 1), (2.0, 2), (3.0, 3), (4.0, 4)], [false, false, false, false, false]),
    ]

    @Test("a count that stands still for the timeout is idle; one that moves is not", arguments: 0..<4)
    func standsStill(index: Int) {
        let (timeout, samples, verdicts) = Self.stillCases[index]
        #expect(Self.run(timeout: timeout, samples) == verdicts)
    }

    @Test("no count (not connected, suspended, paused) stops the clock, and the next count starts it over")
    func pausedClock() {
        #expect(Self.run(timeout: 1, [(0, 5), (0.5, nil), (5, nil), (5.5, 5), (6, 5), (6.5, 5)]) == [false, false, false, false, false, true])
    }

    @Test("a zero or negative timeout is never idle", arguments: [0.0, -1.0])
    func noTimeout(timeout: Double) {
        #expect(Self.run(timeout: timeout, [(0, 1), (100, 1), (1000, 1)]) == [false, false, false])
        #expect(IdleWatch(timeout: timeout).timeout == 0)
    }

    @Test("restart forgets the last count: the next sample starts the clock")
    func restart() {
        var watch = IdleWatch(timeout: 1)
        let first = watch.isIdle(count: 3, at: Self.start)
        watch.restart()
        let afterRestart = watch.isIdle(count: 3, at: Self.start + .seconds(5))
        let later = watch.isIdle(count: 3, at: Self.start + .seconds(6))
        #expect([first, afterRestart, later] == [false, false, true])
    }

    @Test("the first sample never says idle, whatever time passed before it")
    func firstSample() {
        var watch = IdleWatch(timeout: 1)
        let verdict = watch.isIdle(count: 0, at: Self.start + .seconds(100))
        #expect(!verdict)
    }
}
