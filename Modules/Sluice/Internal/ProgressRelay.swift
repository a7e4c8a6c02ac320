import SluiceCore
import SluiceTransport

/// Hands one request's progress reports to its handler, attempt after attempt, and ends a successful
/// transfer with a report that counts every byte.
final class ProgressRelay: Sendable {
    private struct State {
        var consumer: Task<Void, Never>?
        var last: TransferProgress?
    }

    private let handler: HTTPSessionManager.ProgressHandler
    private let state = Locked(State())

    init(_ handler: @escaping HTTPSessionManager.ProgressHandler) { self.handler = handler }

    /// Starts reporting the progress of `task` (called before the task starts).
    func follow(_ task: SessionTask) {
        let updates = task.progressUpdates
        let consumer = Task { [handler, state] in
            for await update in updates {
                handler(update)
                state.withLock { $0.last = update }
            }
        }
        state.withLock { $0.consumer = consumer }
    }

    /// Waits for the reports of the attempt to be delivered; after a success, reports the final counts
    /// unless the last report had them already.
    func finish(succeeded response: DataResponse?) async {
        let consumer = state.withLock { $0.consumer }
        await consumer?.value
        guard let response else { return }
        let sent = response.metrics.transactions.last?.bytesSent ?? 0
        let received = Int64(response.data.count)
        let last = state.withLock { $0.last }
        let final = TransferProgress(
            bytesSent: max(sent, last?.bytesSent ?? 0), totalBytesToSend: max(sent, last?.bytesSent ?? 0),
            bytesReceived: max(received, last?.bytesReceived ?? 0), totalBytesExpected: max(received, last?.bytesReceived ?? 0))
        if final != last { handler(final) }
    }
}
