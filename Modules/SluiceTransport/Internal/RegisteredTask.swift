/// A task as its session lists it until the task completes.
///
/// An awaited task is held: its caller resumes it at once and waits for it. A task handed to its caller
/// suspended (the completion-handler API) is only referred to: the caller holds it until it is resumed,
/// its transfer from then on. Held by the session, a task never resumed would hold the session in turn
/// (a task holds its session), and neither would be freed once the caller let go of both.
struct RegisteredTask: Sendable {
    private let held: SessionTask?
    private weak var referred: SessionTask?

    /// An entry that holds `task` until it is removed.
    init(holding task: SessionTask) { held = task }

    /// An entry that refers to `task` while someone else holds it.
    init(referringTo task: SessionTask) {
        held = nil
        referred = task
    }

    /// The task, unless it was released.
    var task: SessionTask? { held ?? referred }
}
