import Foundation
import SluiceCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs HTTP tasks on libcurl: data, upload, download and streaming, with an async API and a
/// completion-handler API.
///
/// A session owns one engine thread and its connections. It lives while its owner or one of its tasks
/// holds it: released by its owner, it lets its running tasks finish, then stops the thread and frees its
/// handles. ``invalidate(cancelingTasks:)`` ends it on demand.
///
/// ```swift
/// let session = SessionManager()
/// let response = try await session.data(for: HTTPRequest(url: "https://example.com/items"))
/// print(response.response.statusCode, response.data.count)
/// ```
public final class SessionManager: Sendable, TaskController {
    /// The key of the ``SluiceError`` in a completion notification's `userInfo`.
    public static let errorUserInfoKey = "SluiceError"
    /// The key of the ``TaskMetrics`` in a completion notification's `userInfo`.
    public static let metricsUserInfoKey = "SluiceMetrics"

    /// The configuration the session was made with.
    public var configuration: SessionConfiguration { _read { yield sharedConfiguration.value } }
    /// The observers told of every task's lifecycle.
    public let eventMonitors: [any EventMonitor]

    let engine: CurlEngine
    let sharedConfiguration: SharedConfiguration
    /// The pipeline's steps, top first (``PipelineStage/stages(for:)``).
    let stages: [PipelineStage]
    /// The session's tasks that have not completed, by id; whether the session was invalidated; and,
    /// once invalidated without cancelling, the started tasks its engine waits for before it stops.
    let state = Locked<(tasks: [Int: RegisteredTask], invalidated: Bool, draining: Set<Int>)>(([:], false, []))
    /// The next task's id.
    let nextTaskID = Atomic<Int>(1)

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, limits, TLS, codings. Default ``SessionConfiguration/default``.
    ///   - eventMonitors: Lifecycle observers. Default none.
    public init(configuration: SessionConfiguration = .default, eventMonitors: [any EventMonitor] = []) {
        self.sharedConfiguration = SharedConfiguration(configuration)
        self.stages = PipelineStage.stages(for: configuration)
        self.eventMonitors = eventMonitors
        do {
            engine = try CurlEngine(configuration: configuration)
        } catch {
            // Only an out-of-memory libcurl fails here; there is no session without it.
            preconditionFailure("Sluice: \(error)")
        }
    }

    deinit { engine.submit(.stop(cancelling: true)) }

    /// An executor that runs jobs on this session's engine thread, between turns of its curl loop.
    ///
    /// Code that sends requests one after another, and waits for each, gets its answers soonest when it
    /// runs there: a response resumes the awaiting code on the thread that received it, with no other
    /// thread to wake.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(session.taskExecutor) {
    ///     for request in requests { _ = try await session.data(for: request) }
    /// }
    /// ```
    ///
    /// Code on this executor must not block or run long: while it runs, none of the session's transfers
    /// moves. Many tasks at once are better left on the default executor, which spreads their work over
    /// the cooperative pool. Jobs enqueued after the session stopped run on the global executor.
    public var taskExecutor: any TaskExecutor { engine }

    /// The kernel id of this session's engine thread once it has started, else 0.
    var engineThreadID: Int32 { engine.threadID.withLock { $0 } }

    /// Stops taking tasks. With `cancelingTasks`, every task not yet completed — running, or created and
    /// never resumed — ends with ``SluiceError/Code/cancelled``; otherwise running tasks finish first,
    /// every hop of them (redirects and authentication rounds are sent after the invalidation too), and
    /// the session's engine stops after the last. New tasks, and tasks resumed afterwards, fail with
    /// ``SluiceError/Code/sessionInvalidated``.
    public func invalidate(cancelingTasks: Bool) {
        // The tasks are released outside the lock: a task's last release takes it (see `taskReleased`).
        let registered = state.withLock { state -> [SessionTask] in
            state.invalidated = true
            return state.tasks.values.compactMap(\.task)
        }
        guard cancelingTasks else {
            // The engine runs on until the tasks under way complete (``complete(_:_:)`` stops it after the
            // last): a call between two hops, or in a layer, has its next hop still to send.
            let started = Set(registered.lazy.filter { $0.mutable.withLock { $0.lifecycle.wasStarted } }.map(\.id))
            let stopsNow = state.withLock { state -> Bool in
                state.draining = started.filter { state.tasks[$0] != nil }
                return state.draining.isEmpty
            }
            if stopsNow { engine.submit(.stop(cancelling: false)) }
            return
        }
        // Each task turns to cancelling first, so it ends cancelled however its transfer ends (the engine
        // stopping under it, say), and at once wherever it waits: on the engine, for a handler, or between hops.
        for task in registered { task.cancel() }
        engine.submit(.stop(cancelling: true))
    }

    /// The tasks that have not completed: running ones, and suspended ones their callers hold (a task
    /// released before it was resumed is discarded, its completion never called).
    public var tasks: [SessionTask] { state.withLock { $0.tasks.values.compactMap(\.task) }.sorted { $0.id < $1.id } }

    // MARK: Async API

    /// Sends `request` and collects the body.
    ///
    /// - Throws: ``SluiceError`` for transport failures (HTTP error statuses are responses, not
    ///   errors), carrying the request, any response and the bytes received.
    ///
    /// - Parameters:
    ///   - request: The request to send; ``HTTPRequest/body`` is sent as it is.
    ///   - didCreateTask: Called with the task before it starts, to follow its progress or keep it.
    ///     Default `nil`.
    public func data(
        for request: HTTPRequest, didCreateTask: (@Sendable (SessionTask) -> Void)? = nil
    ) async throws(SluiceError) -> DataResponse {
        try await runData(kind: .data, request: request, didCreateTask)
    }

    /// Sends `request` with `body` (bytes, a file, or a stream pulled as it is sent) and collects the
    /// response body.
    ///
    /// - Throws: As ``data(for:didCreateTask:)``, plus body errors (``SluiceError/Code/bodyLengthMismatch``,
    ///   file errors).
    ///
    /// - Parameters:
    ///   - request: The request to send; its own ``HTTPRequest/body`` is replaced by `body`.
    ///   - body: The request body: bytes, a file, or a stream pulled as it is sent.
    ///   - didCreateTask: Called with the task before it starts. Default `nil`.
    ///   - progress: Called as bytes move (request body sent, response body received), on an
    ///     unspecified thread, never concurrently with itself; intermediate reports may be skipped when
    ///     the handler is slower than the transfer. On success its last call, made before this returns,
    ///     has the final counts, with the totals known. Default `nil`.
    public func upload(
        for request: HTTPRequest, from body: HTTPBody, didCreateTask: (@Sendable (SessionTask) -> Void)? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SluiceError) -> DataResponse {
        var request = request
        request.body = body
        return try await runData(kind: .upload, request: request, didCreateTask, progress: progress)
    }

    /// Downloads the body to a temporary file as it arrives, then moves it to where `destination`
    /// says. A failed download leaves no partial file behind.
    ///
    /// - Throws: As ``data(for:didCreateTask:)``, plus ``SluiceError/Code/downloadFailed`` when the file cannot be
    ///   written or moved.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - destination: Given the finished temporary file and the response, returns where the file goes;
    ///     it is moved there, replacing a regular file already there (never a directory or a link).
    ///   - didCreateTask: Called with the task before it starts. Default `nil`.
    ///   - progress: Called as bytes arrive, as for ``upload(for:from:didCreateTask:progress:)``: on an
    ///     unspecified thread, and on success a last time, before this returns, with the final counts
    ///     (`totalBytesExpected` is `Content-Length` when the server sent one, else the bytes
    ///     received). Default `nil`.
    public func download(
        for request: HTTPRequest, to destination: @escaping DownloadDestination,
        didCreateTask: (@Sendable (SessionTask) -> Void)? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SluiceError) -> DownloadResponse {
        try await runDownload(request: request, resuming: nil, to: destination, didCreateTask, progress: progress)
    }

    /// Continues a download from its resume data with a `Range` request from the partial file's size
    /// (and `If-Range` with its validator); a server that ignores the range (or whose resource changed)
    /// sends the whole body, and the file starts over. The response's
    /// ``DownloadResponse/resumption`` says which happened.
    ///
    /// - Throws: As ``download(for:to:didCreateTask:progress:)``; ``SluiceError/Code/resumeDataInvalid``
    ///   when the partial file is missing or changed (another length or modification time than the
    ///   resume data says) and `ifPartialFileChanged` is ``ResumeData/PartialFilePolicy/fail``;
    ///   ``SluiceError/Code/downloadFailed`` when the server resumes from another byte than where the
    ///   file ends (the partial file is then kept).
    ///
    /// - Parameters:
    ///   - resumeData: What ``cancel(_:producingResumeData:)`` returned: the URL and headers of the request
    ///     (sent as a `GET`), the partial file and the validator.
    ///   - destination: Where the finished file goes, as for ``download(for:to:didCreateTask:progress:)``.
    ///   - ifPartialFileChanged: What to do when the partial file is missing or changed. Default
    ///     ``ResumeData/PartialFilePolicy/fail``.
    ///   - progress: As for ``download(for:to:didCreateTask:progress:)``, counting from the bytes
    ///     already in the partial file when the server continues it (as URLSession does): the first
    ///     report of a download resumed at 8 MB of 16 says 8 MB and more, of 16. Default `nil`.
    public func download(
        resumingWith resumeData: ResumeData, to destination: @escaping DownloadDestination,
        ifPartialFileChanged: ResumeData.PartialFilePolicy = .fail,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SluiceError) -> DownloadResponse {
        var request = HTTPRequest(url: resumeData.url)
        request.headers = (try? HTTPHeaders(validating: resumeData.headers)) ?? HTTPHeaders()
        return try await runDownload(
            request: request, resuming: (resumeData, ifPartialFileChanged), to: destination, nil, progress: progress)
    }

    /// Starts `request` and returns when the response head has arrived, with the body as a stream of
    /// chunks that pauses the transfer while the consumer is behind.
    ///
    /// - Throws: As ``data(for:didCreateTask:)`` for failures before the head arrives; later failures end the stream.
    public func bytes(for request: HTTPRequest) async throws(SluiceError) -> (ByteStream, HTTPResponse) {
        let (stream, response, _) = try await runStream(request: request, nil)
        return (stream, response)
    }
    // MARK: Completion-handler API

    /// A suspended data task; call ``SessionTask/resume()``. `completion` runs on the configuration's
    /// completion queue.
    public func dataTask(
        with request: HTTPRequest, completion: @escaping @Sendable (Result<DataResponse, SluiceError>) -> Void
    ) -> SessionTask {
        makeDataTask(kind: .data, request: request, completion: completion)
    }

    /// A suspended upload task sending `body`; call ``SessionTask/resume()``.
    public func uploadTask(
        with request: HTTPRequest, from body: HTTPBody,
        completion: @escaping @Sendable (Result<DataResponse, SluiceError>) -> Void
    ) -> SessionTask {
        var request = request
        request.body = body
        return makeDataTask(kind: .upload, request: request, completion: completion)
    }

    /// A suspended download task; call ``SessionTask/resume()``.
    public func downloadTask(
        with request: HTTPRequest, to destination: @escaping DownloadDestination,
        completion: @escaping @Sendable (Result<DownloadResponse, SluiceError>) -> Void
    ) -> SessionTask {
        let queue = configuration.completionQueue
        let sink = FileSink(path: FileSink.temporaryPath(), resumeOffset: 0)
        return makeHandlerTask(kind: .download, request: request, sink: .file(sink)) { result in
            let delivered = Self.finishDownload(sink, to: destination, result)
            queue.async { completion(delivered) }
        }
    }

    /// Cancels a download task and keeps its partial file for ``download(resumingWith:to:ifPartialFileChanged:progress:)``.
    ///
    /// A cancel that returns resume data wins: the task ends with ``SluiceError/Code/cancelled`` even
    /// when its last bytes arrived meanwhile, no byte is written to the partial file after this
    /// returns, and the file is kept exactly as long as ``ResumeData/partialFileLength`` says (until
    /// resumed, or removed by the caller).
    ///
    /// Returns `nil` (and still cancels) for a task that is not a download, one whose response has not
    /// started, one answered with an error status (its body is not the resource), and one that has
    /// completed or was cancelled already.
    public func cancel(_ task: SessionTask, producingResumeData: Bool) -> ResumeData? {
        guard producingResumeData, task.kind == .download else {
            task.cancel()
            return nil
        }
        // The cancel and the freeze happen under the task's lock: the completion, which takes that lock
        // too, then finds the task cancelling (and ends it cancelled) and the partial file kept.
        let cancelled = task.mutable.withLock { state -> (frozen: FrozenPartialFile?, Cancellation)? in
            let action = state.lifecycle.cancel()
            guard action != .none else { return nil }
            let frozen = state.call?.sink.freezeForResume()
            return (frozen, Cancellation(action: action, state: &state))
        }
        guard let (frozen, cancellation) = cancelled else { return nil }
        carryOut(cancellation, for: task)
        guard let frozen else { return nil }
        let response = task.response
        let validator = response?.headers.first("ETag") ?? response?.headers.first("Last-Modified")
        return ResumeData(
            url: task.currentRequest.url, headers: task.currentRequest.headers.dictionary,
            partialFilePath: frozen.path, validator: validator, partialFileLength: frozen.length,
            partialFileModified: ResumeData.FileTime(frozen.modified))
    }

    // MARK: Task controller

    func resume(_ task: SessionTask) {
        enum Resumed {
            case start((@Sendable (SessionTask, SluiceError?) -> Void)?)
            case transfer(Transfer?)
        }
        let resumed = task.mutable.withLock { state -> Resumed? in
            switch state.lifecycle.resume() {
            case .none: return nil
            case .resumeTransfer: return .transfer(state.transfer)
            case .start:
                defer { state.starter = nil }
                return .start(state.starter)
            }
        }
        guard let resumed else { return }
        // Told before the task can end: its completion must not reach the monitors before its resumption.
        notify(.sluiceTaskDidResume, task) { $0.taskDidResume(task) }
        switch resumed {
        case .start(let starter):
            let invalidated = state.withLock { $0.invalidated }
            starter?(task, invalidated ? SluiceError(.sessionInvalidated, "the session was invalidated", request: task.currentRequest) : nil)
        case .transfer(let transfer):
            if let transfer { engine.submit(.resume(transfer)) }
        }
    }

    func suspend(_ task: SessionTask) {
        let suspended = task.mutable.withLock { state -> (Bool, Transfer?) in
            (state.lifecycle.suspend(), state.transfer)
        }
        guard suspended.0 else { return }
        notify(.sluiceTaskDidSuspend, task) { $0.taskDidSuspend(task) }
        if let transfer = suspended.1 { engine.submit(.suspend(transfer)) }
    }

    func taskReleased(id: Int) {
        state.withLock { _ = $0.tasks.removeValue(forKey: id) }
    }

    func cancel(_ task: SessionTask) {
        guard let cancellation = task.mutable.withLock({ state -> Cancellation? in
            let action = state.lifecycle.cancel()
            guard action != .none else { return nil }
            return Cancellation(action: action, state: &state)
        }) else { return }
        carryOut(cancellation, for: task)
    }

    /// What a cancel found, taken under the task's lock as its lifecycle turned to cancelling.
    struct Cancellation {
        /// The starter of a task that never started: it completes the task with the cancel.
        let starter: (@Sendable (SessionTask, SluiceError?) -> Void)?
        /// The hop on the network, if one is.
        let transfer: Transfer?
        /// The pipeline call, if the task runs.
        let call: PipelineCall?

        init(action: TaskLifecycle.CancelAction, state: inout SessionTask.Mutable) {
            if action == .endTransfer {
                starter = state.starter
                state.starter = nil
            } else {
                starter = nil
            }
            transfer = state.transfer
            call = state.call
        }
    }

    /// Ends a task whose lifecycle has just turned to cancelling, wherever it is: never started, on the
    /// engine, or waiting in its pipeline (for a handler, a layer, the next hop).
    private func carryOut(_ cancellation: Cancellation, for task: SessionTask) {
        let error = SluiceError(.cancelled, "the task was cancelled", request: task.currentRequest)
        if let starter = cancellation.starter { return starter(task, error) }
        if let transfer = cancellation.transfer { cancelTransfer(transfer, error) }
        cancellation.call?.cancelled()
    }
}
