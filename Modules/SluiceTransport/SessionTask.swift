import Foundation
import SluiceCore

/// One request in flight: data, upload, download or stream. Created suspended by the completion-handler
/// API (call ``resume()``), or already running by the async API.
///
/// Every property may be read from any thread.
public final class SessionTask: TransportTask, Identifiable, CustomStringConvertible {
    /// What the task does with the response body.
    public enum Kind: String, Sendable {
        /// The body is collected in memory.
        case data
        /// A request body is sent; the response body is collected in memory.
        case upload
        /// The body is written to a file.
        case download
        /// The body is delivered as it arrives through an asynchronous sequence.
        case stream
    }

    /// Where a task is in its life.
    public enum State: String, Sendable {
        /// Created or suspended: not transferring.
        case suspended
        /// Transferring.
        case running
        /// Cancel was asked; completion follows.
        case canceling
        /// Finished, with a response or an error.
        case completed
    }

    /// A number unique within its session.
    public let id: Int
    /// What the task does.
    public let kind: Kind
    /// The request as given.
    public let originalRequest: HTTPRequest
    /// Upload progress: total and completed request body bytes. Made at first use.
    public var uploadProgress: Progress { mutable.withLock { $0.progress.uploadObjectMadeIfNeeded() } }
    /// Download progress: total (from `Content-Length`, when known) and completed response bytes.
    /// Made at first use.
    public var downloadProgress: Progress { mutable.withLock { $0.progress.downloadObjectMadeIfNeeded() } }

    /// The progress objects, made only when someone asks for them, with the counts so far.
    struct ProgressState: Sendable {
        var uploadObject: Progress?
        var downloadObject: Progress?
        var sent: Int64 = 0
        var totalToSend: Int64 = -1
        var received: Int64 = 0
        var totalExpected: Int64 = -1

        mutating func uploadObjectMadeIfNeeded() -> Progress {
            if let uploadObject { return uploadObject }
            let object = Progress(totalUnitCount: totalToSend)
            object.completedUnitCount = sent
            uploadObject = object
            return object
        }

        mutating func downloadObjectMadeIfNeeded() -> Progress {
            if let downloadObject { return downloadObject }
            let object = Progress(totalUnitCount: totalExpected)
            object.completedUnitCount = received
            downloadObject = object
            return object
        }

        /// Records counts; updates the objects that exist.
        mutating func update(sent: Int64? = nil, totalToSend: Int64? = nil, received: Int64? = nil, totalExpected: Int64? = nil) {
            if let totalToSend { self.totalToSend = totalToSend; uploadObject?.totalUnitCount = totalToSend }
            if let sent { self.sent = sent; uploadObject?.completedUnitCount = sent }
            if let totalExpected { self.totalExpected = totalExpected; downloadObject?.totalUnitCount = totalExpected }
            if let received { self.received = received; downloadObject?.completedUnitCount = received }
        }
    }

    struct Mutable: Sendable {
        /// Where the task is in its life; every transition goes through it.
        var lifecycle = TaskLifecycle()
        var state: State { lifecycle.state }
        var currentRequest: HTTPRequest
        /// The head as received; ``response`` is made from it when first asked for.
        var head: ResponseHead?
        var response: HTTPResponse?
        var error: SluiceError?
        var metrics: TaskMetrics?
        var progress = ProgressState()
        var progressContinuations: [UUID: AsyncStream<TransferProgress>.Continuation] = [:]
        /// The transfer of the hop on the network now, if one is (it refers to the task until it ends).
        var transfer: Transfer?
        /// The task's pipeline call while it runs (it refers to the task until the task completes).
        var call: PipelineCall?
        /// What starts a task of the completion-handler API when it is first resumed, or completes it
        /// with the error given (cancelled before it started, the session invalidated). It does not
        /// refer to the task: a task released without being resumed is freed.
        var starter: (@Sendable (SessionTask, SluiceError?) -> Void)?
        /// Told how the task ended, once, as it completes (an ``HTTPTransport`` exchange's `didComplete`).
        var onComplete: (@Sendable (Result<TaskMetrics, SluiceError>) -> Void)?

        /// The counts as a report, with the progress streams to tell; `nil` when there are none.
        func progressReport() -> (TransferProgress, [AsyncStream<TransferProgress>.Continuation])? {
            guard !progressContinuations.isEmpty else { return nil }
            let update = TransferProgress(
                bytesSent: progress.sent, totalBytesToSend: progress.totalToSend >= 0 ? progress.totalToSend : nil,
                bytesReceived: progress.received,
                totalBytesExpected: progress.totalExpected >= 0 ? progress.totalExpected : nil)
            return (update, Array(progressContinuations.values))
        }

        /// The response, made from the head at the first call.
        mutating func madeResponse() -> HTTPResponse? {
            if response == nil, let head { response = head.makeResponse() }
            return response
        }
    }
    /// The lock's storage held directly (one object fewer than a ``Locked``); it is what makes the
    /// task `Sendable`, as ``Locked`` does.
    nonisolated(unsafe) let mutable: LockedStorage<Mutable>
    let controller: any TaskController

    init(id: Int, kind: Kind, request: HTTPRequest, controller: any TaskController) {
        self.id = id
        self.kind = kind
        self.originalRequest = request
        self.controller = controller
        self.mutable = LockedStorage.make(Mutable(currentRequest: request))
    }

    deinit {
        // Released before it completed: never resumed (a running task is held by its transfer). Its
        // session lists it no more.
        if mutable.withLock({ $0.state != .completed }) { controller.taskReleased(id: id) }
    }

    /// The request being sent now (after redirects).
    public var currentRequest: HTTPRequest { mutable.withLock { $0.currentRequest } }
    /// The response head, once it arrived.
    public var response: HTTPResponse? { mutable.withLock { $0.madeResponse() } }
    /// The state.
    public var state: State { mutable.withLock { $0.state } }
    /// The error the task ended with, once completed with one.
    public var error: SluiceError? { mutable.withLock { $0.error } }
    /// The metrics, once completed.
    public var metrics: TaskMetrics? { mutable.withLock { $0.metrics } }
    /// Whether ``cancel()`` was called: the task completes (or completed) with
    /// ``SluiceError/Code/cancelled``.
    public var isCancelled: Bool { mutable.withLock { $0.lifecycle.wasCancelled } }

    /// Counts `count` more response bytes delivered (a body a layer answered with), of `total` when
    /// known, and tells the progress streams.
    func recordDelivered(_ count: Int, of total: Int64?) {
        let listeners = mutable.withLock { state -> (TransferProgress, [AsyncStream<TransferProgress>.Continuation])? in
            state.progress.update(received: state.progress.received + Int64(count), totalExpected: total ?? state.progress.totalExpected)
            return state.progressReport()
        }
        guard let (update, continuations) = listeners else { return }
        for continuation in continuations { continuation.yield(update) }
    }

    /// Starts the task, or continues it after ``suspend()``. Does nothing once completed or cancelled.
    public func resume() { controller.resume(self) }

    /// Pauses the transfer (no bytes move) until ``resume()``. The resource timeout keeps counting; the
    /// idle timeout does not.
    public func suspend() { controller.suspend(self) }

    /// Cancels the task: it completes with ``SluiceError/Code/cancelled``. Does nothing once completed.
    public func cancel() { controller.cancel(self) }

    /// Progress updates as they happen, ending when the task completes.
    public var progressUpdates: AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        let key = UUID()
        let completed = mutable.withLock { state -> Bool in
            if state.state == .completed { return true }
            state.progressContinuations[key] = continuation
            return false
        }
        if completed { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.mutable.withLock { $0.progressContinuations.removeValue(forKey: key) }
        }
        return stream
    }

    /// `kind #id METHOD url (state)`.
    public var description: String { "\(kind) task #\(id) \(originalRequest) (\(state.rawValue))" }
}

/// What a task asks its session to do.
protocol TaskController: AnyObject, Sendable {
    func resume(_ task: SessionTask)
    func suspend(_ task: SessionTask)
    func cancel(_ task: SessionTask)
    /// The task `id` was released by its caller without being resumed.
    func taskReleased(id: Int)
}
