@testable import SluiceTransport
import Testing

/// Why a transfer is paused, event by event, with no handle: which events ask the engine to pause or
/// continue curl, and when the idle clock stands still.
@Suite("Transfer pause")
struct TransferPauseTests {
    enum Event: String, CaseIterable, Sendable {
        case suspend, resume, streamCanContinue, pausedByStream, waitingForBody, attemptStarted
    }

    /// Applies `event`; returns what it asked of curl (`nil` for events that ask nothing).
    static func apply(_ event: Event, to pause: inout TransferPause) -> Bool? {
        switch event {
        case .suspend: return pause.suspend()
        case .resume: return pause.resume()
        case .streamCanContinue: return pause.streamCanContinue()
        case .pausedByStream: pause.pausedByStream()
        case .waitingForBody: pause.waitingForBody()
        case .attemptStarted: pause.attemptStarted()
        }
        return nil
    }

    /// One sequence: the events, what each asked of curl, and whether the idle clock stops at the end.
    struct Case: Sendable, CustomTestStringConvertible {
        let events: [Event]
        let asks: [Bool?]
        let stopsIdleClock: Bool
        var testDescription: String { events.map(\.rawValue).joined(separator: " → ") }
    }

    static let cases: [Case] = [
        Case(events: [.suspend], asks: [true], stopsIdleClock: true),
        Case(events: [.suspend, .suspend], asks: [true, false], stopsIdleClock: true),
        Case(events: [.resume], asks: [false], stopsIdleClock: false),
        Case(events: [.suspend, .resume], asks: [true, true], stopsIdleClock: false),
        Case(events: [.suspend, .resume, .resume], asks: [true, true, false], stopsIdleClock: false),
        Case(events: [.pausedByStream], asks: [nil], stopsIdleClock: true),
        Case(events: [.pausedByStream, .streamCanContinue], asks: [nil, true], stopsIdleClock: false),
        Case(events: [.pausedByStream, .streamCanContinue, .streamCanContinue], asks: [nil, true, false], stopsIdleClock: false),
        Case(events: [.waitingForBody], asks: [nil], stopsIdleClock: false),
        Case(events: [.waitingForBody, .streamCanContinue], asks: [nil, true], stopsIdleClock: false),
        Case(events: [.streamCanContinue], asks: [false], stopsIdleClock: false),
        // A stream's wake-up does not continue a suspended task; resuming drops every reason at once.
        Case(events: [.pausedByStream, .suspend, .streamCanContinue], asks: [nil, true, false], stopsIdleClock: true),
        Case(events: [.waitingForBody, .suspend, .resume, .streamCanContinue], asks: [nil, true, true, false], stopsIdleClock: false),
        Case(events: [.suspend, .pausedByStream, .resume], asks: [true, nil, true], stopsIdleClock: false),
        // A new attempt drops the stream and body reasons, keeps a suspension.
        Case(events: [.pausedByStream, .waitingForBody, .attemptStarted], asks: [nil, nil, nil], stopsIdleClock: false),
        Case(events: [.suspend, .attemptStarted], asks: [true, nil], stopsIdleClock: true),
    ]

    @Test("each sequence of events asks curl for what it should, and stops the idle clock when it should", arguments: cases)
    func sequences(_ sequence: Case) {
        var pause = TransferPause()
        let asks = sequence.events.map { Self.apply($0, to: &pause) }
        #expect(asks == sequence.asks)
        #expect(pause.stopsIdleClock == sequence.stopsIdleClock)
    }

    @Test("every pair of events leaves a state the flags agree with")
    func everyPair() {
        for first in Event.allCases {
            for second in Event.allCases {
                var pause = TransferPause()
                _ = Self.apply(first, to: &pause)
                _ = Self.apply(second, to: &pause)
                #expect(pause.stopsIdleClock == (pause.isSuspended || pause.isPausedByStream), "\(first) → \(second)")
                if second == .resume && first == .suspend { #expect(pause == TransferPause()) }
            }
        }
    }
}
