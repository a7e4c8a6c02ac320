import Foundation
import SluiceCore

/// What a hop's transfer tells the task it belongs to, batched: everything one curl callback learned
/// (a head, the body's start with its expected length, the counts so far) travels as one report, so the
/// task takes its lock once for it. Fields left `nil` are unchanged.
struct HopReport: Sendable {
    /// A final response head that arrived.
    var head: ResponseHead?
    /// The request body's length (-1 unknown), known once the hop configured its body.
    var totalToSend: Int64?
    /// The response body's expected length (-1 unknown), known once its body began.
    var totalExpected: Int64?
    /// Request body bytes sent so far in this hop.
    var sent: Int64?
    /// Response bytes received so far, the part the destination held before this hop included.
    var received: Int64?

    /// Whether the report carries nothing.
    var isEmpty: Bool { head == nil && totalToSend == nil && totalExpected == nil && sent == nil && received == nil }
}

/// Who hears a hop's reports: the task it belongs to. The transfer knows nothing else of the task.
protocol HopObserver: AnyObject, Sendable {
    /// Applies `report` in one step and tells whoever follows the task's progress. Called on the engine
    /// thread, never with the transfer's state locked.
    func hopReported(_ report: HopReport)
}

extension SessionTask: HopObserver {
    func hopReported(_ report: HopReport) {
        let listeners = mutable.withLock { state -> (TransferProgress, [AsyncStream<TransferProgress>.Continuation])? in
            if let head = report.head {
                state.head = head
                state.response = nil
            }
            state.progress.update(
                sent: report.sent, totalToSend: report.totalToSend, received: report.received,
                totalExpected: report.totalExpected)
            return report.sent == nil && report.received == nil ? nil : state.progressReport()
        }
        guard let (update, continuations) = listeners else { return }
        for continuation in continuations { continuation.yield(update) }
    }
}
