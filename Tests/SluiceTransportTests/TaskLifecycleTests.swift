import Foundation
@testable import SluiceTransport
import Testing

/// The task lifecycle with no socket: every event from every phase, and what each asks of the session.
@Suite("Task lifecycle")
struct TaskLifecycleTests {
    enum Event: String, CaseIterable, CustomStringConvertible {
        case resume, suspend, cancel, complete
        var description: String { rawValue }
    }

    /// The lifecycle after `events`, from a new task.
    private static func after(_ events: [Event]) -> TaskLifecycle {
        var lifecycle = TaskLifecycle()
        for event in events {
            switch event {
            case .resume: _ = lifecycle.resume()
            case .suspend: _ = lifecycle.suspend()
            case .cancel: _ = lifecycle.cancel()
            case .complete: _ = lifecycle.complete()
            }
        }
        return lifecycle
    }

    /// Paths to each phase.
    static let phases: [(String, [Event])] = [
        ("created", []), ("running", [.resume]), ("suspended", [.resume, .suspend]),
        ("cancelling before start", [.cancel]), ("cancelling after start", [.resume, .cancel]), ("completed", [.resume, .complete]),
    ]

    @Test("a new task is created, reads as suspended, and was never started")
    func newTask() {
        let lifecycle = TaskLifecycle()
        #expect(lifecycle.phase == .created)
        #expect(lifecycle.state == .suspended)
        #expect(!lifecycle.wasStarted)
    }

    @Test("resume from each phase", arguments: [
        ("created", TaskLifecycle.ResumeAction.start, TaskLifecycle.Phase.running),
        ("running", .none, .running), ("suspended", .resumeTransfer, .running),
        ("cancelling before start", .none, .cancelling), ("cancelling after start", .none, .cancelling), ("completed", .none, .completed),
    ])
    func resume(from phase: String, action: TaskLifecycle.ResumeAction, next: TaskLifecycle.Phase) throws {
        var lifecycle = Self.after(try #require(Self.phases.first { $0.0 == phase }).1)
        let taken = lifecycle.resume()
        #expect(taken == action)
        #expect(lifecycle.phase == next)
    }

    @Test("suspend from each phase", arguments: [
        ("created", false, TaskLifecycle.Phase.created), ("running", true, .suspended), ("suspended", false, .suspended),
        ("cancelling before start", false, .cancelling), ("cancelling after start", false, .cancelling), ("completed", false, .completed),
    ])
    func suspend(from phase: String, pauses: Bool, next: TaskLifecycle.Phase) throws {
        var lifecycle = Self.after(try #require(Self.phases.first { $0.0 == phase }).1)
        let paused = lifecycle.suspend()
        #expect(paused == pauses)
        #expect(lifecycle.phase == next)
    }

    @Test("cancel from each phase: the engine is asked only once it has the transfer", arguments: [
        ("created", TaskLifecycle.CancelAction.endTransfer, TaskLifecycle.Phase.cancelling),
        ("running", .cancelTransfer, .cancelling), ("suspended", .cancelTransfer, .cancelling),
        ("cancelling before start", .none, .cancelling), ("cancelling after start", .none, .cancelling), ("completed", .none, .completed),
    ])
    func cancel(from phase: String, action: TaskLifecycle.CancelAction, next: TaskLifecycle.Phase) throws {
        var lifecycle = Self.after(try #require(Self.phases.first { $0.0 == phase }).1)
        let taken = lifecycle.cancel()
        #expect(taken == action)
        #expect(lifecycle.phase == next)
        #expect(lifecycle.state == (next == .cancelling ? .canceling : next == .completed ? .completed : lifecycle.state))
    }

    @Test("complete from each phase happens once, and a cancel asked before it wins", arguments: [
        ("created", TaskLifecycle.Completion.asEnded), ("running", .asEnded), ("suspended", .asEnded),
        ("cancelling before start", .cancelled), ("cancelling after start", .cancelled), ("completed", .alreadyCompleted),
    ])
    func complete(from phase: String, completion: TaskLifecycle.Completion) throws {
        var lifecycle = Self.after(try #require(Self.phases.first { $0.0 == phase }).1)
        let first = lifecycle.complete()
        #expect(first == completion)
        #expect(lifecycle.phase == .completed)
        #expect(lifecycle.state == .completed)
        let second = lifecycle.complete()
        #expect(second == .alreadyCompleted)
    }

    @Test("whether the engine ever had the transfer survives cancel and completion", arguments: [
        ([Event](), false), ([.resume], true), ([.resume, .suspend], true), ([.cancel], false), ([.resume, .cancel], true),
        ([.resume, .suspend, .cancel], true), ([.complete], false), ([.resume, .complete], true), ([.cancel, .complete], false),
        ([.resume, .cancel, .complete], true), ([.cancel, .resume], false), ([.suspend, .resume], true),
    ])
    func wasStarted(events: [Event], started: Bool) {
        #expect(Self.after(events).wasStarted == started)
    }

    @Test("every sequence of three events ends in a consistent phase", arguments: Event.allCases)
    func sequences(first: Event) {
        for second in Event.allCases {
            for third in Event.allCases {
                let lifecycle = Self.after([first, second, third])
                // Completed is final; cancelling is left only by completing.
                let events = [first, second, third]
                if let completeAt = events.firstIndex(of: .complete) {
                    #expect(lifecycle.phase == .completed, "\(events)")
                    _ = completeAt
                } else if events.contains(.cancel) {
                    #expect(lifecycle.phase == .cancelling, "\(events)")
                } else {
                    #expect(lifecycle.phase != .completed && lifecycle.phase != .cancelling, "\(events)")
                }
            }
        }
    }
}
