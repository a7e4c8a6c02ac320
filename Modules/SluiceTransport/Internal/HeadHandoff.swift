import SluiceCore

/// Where a streamed hop's outcome stands between the engine and the call waiting for it: the head
/// (the body then follows in the stream) or the transfer's end, whichever comes first, handed over once.
///
/// A value with no locks: the call keeps it under its lock, sends it the events and carries out what
/// each returns. A result that arrives before the call waits is kept for the wait.
struct HeadHandoff<Waiter: Sendable>: Sendable {
    enum State {
        /// Neither the result nor the waiter has arrived.
        case idle
        /// The call waits.
        case awaiting(Waiter)
        /// The result came first.
        case arrived(Result<Void, SluiceError>)
        /// The call has the result: what follows (the transfer's end after its head) is the body's.
        case handedOver
    }

    private(set) var state = State.idle

    /// The call waits: returns the result at once when it came first (the waiter is not kept then).
    mutating func wait(_ waiter: Waiter) -> Result<Void, SluiceError>? {
        switch state {
        case .idle:
            state = .awaiting(waiter)
            return nil
        case .arrived(let result):
            state = .handedOver
            return result
        case .awaiting, .handedOver:
            preconditionFailure("a hop is waited for once")
        }
    }

    /// What an arriving result does.
    enum Arrival {
        /// Resume this waiter with the result.
        case resume(Waiter)
        /// Kept until the call waits.
        case kept
        /// The call had its result already: this one belongs to the body.
        case afterHandover
    }

    /// The head arrived (`success`) or the transfer ended first.
    mutating func arrive(_ result: Result<Void, SluiceError>) -> Arrival {
        switch state {
        case .idle:
            state = .arrived(result)
            return .kept
        case .awaiting(let waiter):
            state = .handedOver
            return .resume(waiter)
        case .arrived, .handedOver:
            return .afterHandover
        }
    }

    /// A new hop begins.
    mutating func reset() { state = .idle }
}
