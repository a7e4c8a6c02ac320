import Foundation
import SluiceCore

/// The session as the ``HTTPTransport`` seam: what ``HTTPSessionManager`` and every layer above it use.
extension SessionManager: HTTPTransport {
    /// Sends `request` on this session: ``data(for:didCreateTask:)`` (or
    /// ``upload(for:from:didCreateTask:progress:)`` when it has a body) for ``ResponseBodyDestination/memory``,
    /// ``download(for:to:didCreateTask:progress:)`` for a file, ``bytes(for:)`` for a stream (whose
    /// progress reports follow the task after the exchange returned, until the body ends).
    ///
    /// - Throws: As those methods: ``SluiceError`` for a request that cannot be sent, transport
    ///   failures, ``SluiceError/Code/cancelled``, ``SluiceError/Code/downloadFailed``.
    public func exchange(
        _ request: HTTPRequest, receiving destination: ResponseBodyDestination, events: TransportEvents
    ) async throws(SluiceError) -> TransportExchange {
        let told = events.didCreateTask
        let didComplete = events.didComplete
        var didCreateTask: (@Sendable (SessionTask) -> Void)?
        if told != nil || didComplete != nil {
            didCreateTask = { (task: SessionTask) in
                if let didComplete { task.mutable.withLock { $0.onComplete = didComplete } }
                told?(task)
            }
        }
        switch destination {
        case .memory:
            let didCreateTask = didCreateTask
            let kind: SessionTask.Kind = request.body.isPresent ? .upload : .data
            let received = try await runData(kind: kind, request: request, didCreateTask, progress: events.progress)
            return TransportExchange(
                request: received.request, response: received.response, body: .data(received.data),
                metrics: received.metrics)
        case .file(let destination):
            let didCreateTask = didCreateTask
            let received = try await runDownload(
                request: request, resuming: nil, to: destination, didCreateTask, progress: events.progress)
            return TransportExchange(
                request: received.request, response: received.response, body: .file(received.fileURL),
                metrics: received.metrics)
        case .stream:
            // The exchange returns with the head: progress follows the task's reports until it ends.
            let created = didCreateTask
            let following = events.progress.map { progress in
                { @Sendable (task: SessionTask) in
                    let updates = task.progressUpdates
                    Task { for await update in updates { progress(update) } }
                    created?(task)
                }
            }
            let (stream, response, task) = try await runStream(request: request, following ?? created)
            return TransportExchange(
                request: task.currentRequest, response: response, body: .stream(ResponseBodyStream(stream)))
        }
    }
}
