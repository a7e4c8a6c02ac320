import Foundation
import SluiceCore

/// Observes a session's task lifecycle. Every method has an empty default. Calls come from many
/// threads — the one that resumes or suspends a task, a worker of the session, and for tasks of the
/// async API the awaiting code's own task, which is told of the completion before it returns — so
/// implementations must be thread-safe and should return quickly.
public protocol EventMonitor: Sendable {
    /// The task started or continued.
    func taskDidResume(_ task: SessionTask)
    /// The task was suspended.
    func taskDidSuspend(_ task: SessionTask)
    /// The task completed, with its error (`nil` on success) and metrics.
    func taskDidComplete(_ task: SessionTask, error: SluiceError?, metrics: TaskMetrics?)
    /// A hop of the task is about to go down the pipeline below the follow-ups: the request as the
    /// caller made it (0), then each redirect and authentication round.
    func task(_ task: SessionTask, willSend request: HTTPRequest, hop: Int)
    /// A hop of the task was answered, by the network, the cache, or a layer (`source`); `request` is the
    /// hop's request as it was sent (the session's default headers, `Accept-Encoding` and a Basic
    /// credential's `Authorization` added: redact it before logging).
    func task(
        _ task: SessionTask, didReceive response: HTTPResponse, for request: HTTPRequest, from source: ResponseSource, hop: Int)
}

extension EventMonitor {
    /// Does nothing.
    public func taskDidResume(_ task: SessionTask) {}
    /// Does nothing.
    public func taskDidSuspend(_ task: SessionTask) {}
    /// Does nothing.
    public func taskDidComplete(_ task: SessionTask, error: SluiceError?, metrics: TaskMetrics?) {}
    /// Does nothing.
    public func task(_ task: SessionTask, willSend request: HTTPRequest, hop: Int) {}
    /// Does nothing.
    public func task(
        _ task: SessionTask, didReceive response: HTTPResponse, for request: HTTPRequest, from source: ResponseSource, hop: Int
    ) {}
}

/// Posted when ``SessionConfiguration/postsTaskNotifications`` is on.
extension Notification.Name {
    /// Posted when a task resumes; `object` is the ``SessionTask``.
    public static let sluiceTaskDidResume = Notification.Name("SluiceTaskDidResume")
    /// Posted when a task is suspended; `object` is the ``SessionTask``.
    public static let sluiceTaskDidSuspend = Notification.Name("SluiceTaskDidSuspend")
    /// Posted when a task completes; `object` is the ``SessionTask``, `userInfo` holds
    /// ``SessionManager/errorUserInfoKey`` (on failure) and ``SessionManager/metricsUserInfoKey``.
    public static let sluiceTaskDidComplete = Notification.Name("SluiceTaskDidComplete")
}
