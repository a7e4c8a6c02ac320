import Foundation
import SluiceCore
import SluiceTransport

/// A request started by the completion-handler API of ``HTTPSessionManager``: it spans every attempt
/// (adaptation, retries), and cancelling it cancels whichever attempt is running.
public final class HTTPSessionTask: Sendable, CustomStringConvertible {
    private struct State {
        var current: (any TransportTask)?
        var attempts = 0
        var runner: Task<Void, Never>?
        var cancelled = false
        var completed = false
        var response: HTTPResponse?
        var error: SluiceError?
    }

    /// The request as built, before adapters.
    public let originalRequest: HTTPRequest
    private let state = Locked(State())

    init(originalRequest: HTTPRequest) { self.originalRequest = originalRequest }

    /// The transport's task of the attempt running now, or of the last one (a `SessionTask` when the
    /// manager sends through its own session).
    public var currentTask: (any TransportTask)? { state.withLock { $0.current } }
    /// Attempts started so far.
    public var attempts: Int { state.withLock { $0.attempts } }
    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }
    /// Whether the request has finished (success, failure or cancellation).
    public var isCompleted: Bool { state.withLock { $0.completed } }
    /// The final response, once there is one.
    public var response: HTTPResponse? { state.withLock { $0.response } }
    /// The error the request failed with, once it has.
    public var error: SluiceError? { state.withLock { $0.error } }

    /// Cancels the request: the running attempt stops and the failure handler gets
    /// ``SluiceError/Code/cancelled``. Does nothing once completed.
    public func cancel() {
        let runner = state.withLock { state -> Task<Void, Never>? in
            guard !state.completed else { return nil }
            state.cancelled = true
            return state.runner
        }
        runner?.cancel()
    }

    /// `HTTPSessionTask METHOD url (attempts)`.
    public var description: String { "HTTPSessionTask \(originalRequest) (\(attempts) attempts)" }

    func start(_ runner: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            state.runner = runner
            return state.cancelled
        }
        if cancelled { runner.cancel() }
    }

    func attemptStarted(_ task: any TransportTask) {
        state.withLock { state in
            state.current = task
            state.attempts += 1
        }
    }

    func finish(response: HTTPResponse?, error: SluiceError?) {
        state.withLock { state in
            state.completed = true
            state.response = response ?? error?.response
            state.error = error
        }
    }
}
