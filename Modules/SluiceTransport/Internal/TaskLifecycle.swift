/// A task's life, every legal transition in one place: created, running, suspended, cancelling,
/// completed. A value with no locks and no I/O: the session keeps it under the task's lock, sends it
/// the caller's and the engine's events, and carries out the action each returns.
///
/// ```
/// created ──resume──► running ◄──resume── suspended
///    │                 │  └─────suspend─────►  │
///    │               cancel                  cancel
///    └──cancel──► cancelling ◄─────────────────┘
///  any state but completed ──complete──► completed
/// ```
struct TaskLifecycle: Equatable {
    enum Phase: Equatable {
        /// Made, never resumed: no transfer has been handed to the engine.
        case created
        /// Handed to the engine, moving bytes.
        case running
        /// Handed to the engine, paused.
        case suspended
        /// Cancel was asked; the completion follows.
        case cancelling
        /// Ended, once.
        case completed
    }

    /// What resuming asks of the session.
    enum ResumeAction: Equatable {
        /// Hand the transfer to the engine for the first time (the transfer holds its task from now on).
        case start
        /// Un-pause the transfer on the engine.
        case resumeTransfer
        /// Nothing: running, cancelling or completed already.
        case none
    }

    /// What cancelling asks of the session.
    enum CancelAction: Equatable {
        /// The engine has the transfer: ask it to end it (or end it here when the engine is gone).
        case cancelTransfer
        /// The engine never had it: end the transfer here.
        case endTransfer
        /// Nothing: cancelling or completed already.
        case none
    }

    private(set) var phase = Phase.created

    /// Whether the transfer was ever handed to the engine.
    var wasStarted: Bool {
        switch phase {
        case .created: false
        case .running, .suspended: true
        case .cancelling, .completed: startedBeforeEnd
        }
    }
    /// Whether the transfer had been handed to the engine when the task was cancelled or completed.
    private var startedBeforeEnd = false
    /// Whether the task was cancelled (it completes, or completed, cancelled).
    private(set) var wasCancelled = false

    /// The state a caller sees: a created task reads as suspended, as in URLSession.
    var state: SessionTask.State {
        switch phase {
        case .created, .suspended: .suspended
        case .running: .running
        case .cancelling: .canceling
        case .completed: .completed
        }
    }

    /// The caller resumed the task.
    mutating func resume() -> ResumeAction {
        switch phase {
        case .created:
            phase = .running
            return .start
        case .suspended:
            phase = .running
            return .resumeTransfer
        case .running, .cancelling, .completed:
            return .none
        }
    }

    /// The caller suspended the task. Returns whether the transfer is to be paused.
    mutating func suspend() -> Bool {
        guard phase == .running else { return false }
        phase = .suspended
        return true
    }

    /// The caller (or the session's invalidation) cancelled the task.
    mutating func cancel() -> CancelAction {
        switch phase {
        case .created:
            phase = .cancelling
            wasCancelled = true
            return .endTransfer
        case .running, .suspended:
            startedBeforeEnd = true
            phase = .cancelling
            wasCancelled = true
            return .cancelTransfer
        case .cancelling, .completed:
            return .none
        }
    }

    /// How the task completes when its transfer ended.
    enum Completion: Equatable {
        /// As the transfer ended.
        case asEnded
        /// Cancelled, however the transfer ended: a cancel the caller was told of (with resume data,
        /// say) wins over an end that raced it.
        case cancelled
        /// Not again: the task had completed already (a cancel that raced the engine's own end).
        case alreadyCompleted
    }

    /// The transfer ended, however.
    mutating func complete() -> Completion {
        switch phase {
        case .completed:
            return .alreadyCompleted
        case .running, .suspended:
            startedBeforeEnd = true
            phase = .completed
            return .asEnded
        case .created:
            phase = .completed
            return .asEnded
        case .cancelling:
            phase = .completed
            return .cancelled
        }
    }
}
