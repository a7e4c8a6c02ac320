/// The bytes of a response body as a layer that watches it counts them, ended once: at the body's end,
/// at an error, or when the last reference goes (a body dropped unread). For the tracing and metrics
/// layers, which report each body once with its size.
package final class BodyTally: Sendable {
    private struct State: Sendable {
        var ended = false
        var bytes: Int64 = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Counts a part of the body.
    package func add(_ count: Int) {
        state.withLock { $0.bytes += Int64(count) }
    }

    /// The bytes counted, the first time it is called; `nil` after that.
    package func finish() -> Int64? {
        state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state.bytes
        }
    }
}
