/// Why a transfer's easy handle is paused, and whether an event should pause or continue it.
///
/// Three independent reasons: the caller suspended the task; the response stream's reader is behind, or
/// the request body stream asked to wait (a throttle); the request body's read-ahead window is empty
/// because the caller's stream is slow to produce. The first two stop the idle clock, the third does
/// not (a stream that blocks ends in the idle timeout). A value with no locks and no C: the transfer
/// keeps it, its callbacks and the engine's commands send it events, and the engine calls
/// `curl_easy_pause` when an event says so.
struct TransferPause: Equatable {
    private(set) var isSuspended = false
    private(set) var isPausedByStream = false
    private(set) var isWaitingForBody = false

    /// Whether the idle clock stands still.
    var stopsIdleClock: Bool { isSuspended || isPausedByStream }

    /// The caller suspended the task. Returns whether to pause the handle (not when suspended already).
    mutating func suspend() -> Bool {
        guard !isSuspended else { return false }
        isSuspended = true
        return true
    }

    /// The caller resumed the task. Returns whether to continue the handle: only a suspended one, which
    /// then also drops a stream's or body's pause (curl calls back again and pauses anew if still needed).
    mutating func resume() -> Bool {
        guard isSuspended else { return false }
        self = TransferPause()
        return true
    }

    /// The stream's reader caught up, or the body has bytes (or its delay passed). Returns whether to
    /// continue the handle: not while suspended, and only when paused for one of those reasons.
    mutating func streamCanContinue() -> Bool {
        guard !isSuspended, isPausedByStream || isWaitingForBody else { return false }
        isPausedByStream = false
        isWaitingForBody = false
        return true
    }

    /// The write callback found the stream's reader behind, or the read callback found a paced body stream
    /// waiting: the callback pauses the handle by its return value.
    mutating func pausedByStream() { isPausedByStream = true }

    /// The read callback found the read-ahead window empty: the callback pauses the handle.
    mutating func waitingForBody() { isWaitingForBody = true }

    /// A new attempt starts on a fresh handle: no stream or body pause carries over (a suspension does).
    mutating func attemptStarted() {
        isPausedByStream = false
        isWaitingForBody = false
    }
}
