import SluiceCore

/// Waiting as a stub does: in short slices, so that a cancelled task stops at once, and never past the
/// request's timeout, after which the wait fails as a silent server does.
enum StubClock {
    /// Waits `duration`, or `timeout` and then fails with ``SluiceError/Code/idleTimedOut`` when
    /// `duration` is longer.
    ///
    /// - Throws: ``SluiceError/Code/cancelled`` once the call's task is cancelled;
    ///   ``SluiceError/Code/idleTimedOut``.
    static func wait(
        _ duration: Duration, timeout: Duration, context: HTTPLayerContext, request: HTTPRequest
    ) async throws(SluiceError) {
        try context.checkCancellation(request)
        guard duration > .zero else { return }
        let deadline = ContinuousClock.now + min(duration, timeout)
        while true {
            let left = deadline - ContinuousClock.now
            if left <= .zero { break }
            // A cancelled Swift task ends the sleep early; the check below reports it.
            try? await Task.sleep(for: min(left, .milliseconds(10)))
            try context.checkCancellation(request)
        }
        if duration > timeout {
            throw SluiceError(.idleTimedOut, "the stub sent nothing for \(timeout), the request's timeout", request: request)
        }
    }
}
