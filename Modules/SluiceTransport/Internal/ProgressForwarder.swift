import SluiceCore

/// Hands an awaited task's progress reports to a handler: it follows the task's progress stream from
/// before the task starts, and ends, after a success, with a report of the final counts.
final class ProgressForwarder: Sendable {
    private let handler: @Sendable (TransferProgress) -> Void
    /// The last report handed over.
    private let last = Locked<TransferProgress?>(nil)
    private let consumer: Task<Void, Never>

    /// Starts following `task` (call before the task starts, so no report is lost).
    init(task: SessionTask, handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
        let updates = task.progressUpdates
        consumer = Task { [last] in
            for await update in updates {
                handler(update)
                last.withLock { $0 = update }
            }
        }
    }

    /// Waits until every report of the (completed) task was handed over, then hands `final` over
    /// unless it was the last report.
    func finish(final: TransferProgress?) async {
        await consumer.value
        guard let final, last.withLock({ $0 }) != final else { return }
        handler(final)
    }
}
