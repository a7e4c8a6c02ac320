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

    private let engine: CurlEngine
    private let sharedConfiguration: SharedConfiguration
    /// The session's tasks that have not completed, by id, and whether the session was invalidated.
    private let state = Locked<(tasks: [Int: RegisteredTask], invalidated: Bool)>(([:], false))
    /// The next task's id.
    private let nextTaskID = Atomic<Int>(1)

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, limits, TLS, codings. Default ``SessionConfiguration/default``.
    ///   - eventMonitors: Lifecycle observers. Default none.
    public init(configuration: SessionConfiguration = .default, eventMonitors: [any EventMonitor] = []) {
        self.sharedConfiguration = SharedConfiguration(configuration)
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
    /// never resumed — ends with ``SluiceError/Code/cancelled``; otherwise running tasks finish first.
    /// New tasks, and tasks resumed afterwards, fail with ``SluiceError/Code/sessionInvalidated``.
    public func invalidate(cancelingTasks: Bool) {
        // The tasks are released outside the lock: a task's last release takes it (see `taskReleased`).
        let registered = state.withLock { state -> [SessionTask] in
            state.invalidated = true
            return cancelingTasks ? state.tasks.values.compactMap(\.task) : []
        }
        engine.submit(.stop(cancelling: cancelingTasks))
        // The engine cancels the running ones; a task never resumed ends here (and lets go of the session).
        for task in registered where !task.mutable.withLock({ $0.lifecycle.wasStarted }) { task.cancel() }
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
    /// - Parameter didCreateTask: Called with the task before it starts, to follow its progress or
    ///   keep it. Default `nil`.
    public func data(
        for request: HTTPRequest, didCreateTask: (@Sendable (SessionTask) -> Void)? = nil
    ) async throws(SluiceError) -> DataResponse {
        try await runData(kind: .data, request: request, didCreateTask)
    }

    /// Sends `request` with `body` (bytes, a file, or a stream pulled as it is sent) and collects the
    /// response body.
    ///
    /// - Throws: As ``data(for:)``, plus body errors (``SluiceError/Code/bodyLengthMismatch``, file errors).
    ///
    /// - Parameters:
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
    /// - Throws: As ``data(for:)``, plus ``SluiceError/Code/downloadFailed`` when the file cannot be
    ///   written or moved.
    ///
    /// - Parameters:
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
    /// - Throws: As ``data(for:)`` for failures before the head arrives; later failures end the stream.
    public func bytes(for request: HTTPRequest) async throws(SluiceError) -> (ByteStream, HTTPResponse) {
        let (stream, response, _) = try await runStream(request: request, nil)
        return (stream, response)
    }

    /// ``bytes(for:)``, telling `didCreateTask` of the task before it starts and returning it.
    func runStream(
        request: HTTPRequest, _ didCreateTask: (@Sendable (SessionTask) -> Void)?
    ) async throws(SluiceError) -> (ByteStream, HTTPResponse, SessionTask) {
        // The stream's buffer reaches the transfer through this box while the transfer runs; the transfer
        // holds the buffer (through its sink), so the box is emptied when the task completes.
        let transferBox = Locked<Transfer?>(nil)
        let buffer = StreamBuffer(
            limit: configuration.streamBufferLimit,
            resumeTransfer: { [engine] in
                if let transfer = transferBox.withLock({ $0 }) { engine.submit(.continueStream(transfer)) }
            },
            cancelTransfer: { transferBox.withLock { $0 }?.task.cancel() })
        let stream = ByteStream(buffer: buffer)
        // The head's result and its awaiting caller, whichever comes first: a task that ends before the
        // caller waits (cancelled already, or the session invalidated) keeps its result for the wait.
        let head = Locked(HeadHandoff.empty)
        let deliver: @Sendable (Result<HTTPResponse, SluiceError>) -> Void = { result in
            let continuation = head.withLock { state -> HeadHandoff.Continuation? in
                switch state {
                case .empty:
                    state = .delivered(result)
                    return nil
                case .awaiting(let continuation):
                    state = .done
                    return continuation
                case .delivered, .done:
                    return nil
                }
            }
            continuation?.resume(returning: result)
        }
        let sink = StreamSink(buffer: buffer) { response in deliver(.success(response)) }
        let (task, transfer) = makeTask(kind: .stream, request: request, sink: sink) { result in
            transferBox.withLock { $0 = nil }
            switch result {
            case .success: buffer.finish(nil)
            case .failure(let error):
                buffer.finish(error)
                deliver(.failure(error))
            }
        }
        transferBox.withLock { $0 = transfer }
        // Ended already (the session was invalidated): the completion emptied the box before it was set.
        if task.state == .completed { transferBox.withLock { $0 = nil } }
        didCreateTask?(task)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = head.withLock { state -> Result<HTTPResponse, SluiceError>? in
                    guard case .delivered(let result) = state else {
                        state = .awaiting(continuation)
                        return nil
                    }
                    state = .done
                    return result
                }
                if let early { return continuation.resume(returning: early) }
                task.resume()
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            task.cancel()
        }
        return (stream, try result.get(), task)
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
        return makeTask(kind: .download, request: request, sink: sink) { result in
            let delivered = Self.deliver(download: sink, to: destination, result)
            queue.async { completion(delivered) }
        }.task
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
        let cancelled = task.mutable.withLock { state -> (frozen: FrozenPartialFile?, started: Bool, Transfer)? in
            guard let transfer = state.transfer else { return nil }
            let action = state.lifecycle.cancel()
            guard action != .none else { return nil }
            return (transfer.sink.freezeForResume(), action == .cancelTransfer, transfer)
        }
        guard let (frozen, started, transfer) = cancelled else { return nil }
        endCancelled(task, transfer, started: started)
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
        let resumed = task.mutable.withLock { state -> (start: Bool, Transfer)? in
            guard let transfer = state.transfer else { return nil }
            switch state.lifecycle.resume() {
            case .none: return nil
            case .resumeTransfer: return (false, transfer)
            case .start:
                // From now on the engine holds the transfer, and the transfer its task, until it completes.
                transfer.holdTask()
                return (true, transfer)
            }
        }
        guard let (start, transfer) = resumed else { return }
        // Told before the engine has the command: a transfer that was nearly done may end at once, and
        // its completion must not reach the monitors before its resumption.
        notify(.sluiceTaskDidResume, task) { $0.taskDidResume(task) }
        if !engine.submit(start ? .start(transfer) : .resume(transfer)) {
            transfer.end(.failure(SluiceError(.sessionInvalidated, "the session was invalidated", request: task.currentRequest)))
        }
    }

    func suspend(_ task: SessionTask) {
        let suspended = task.mutable.withLock { state -> Transfer? in
            guard let transfer = state.transfer, state.lifecycle.suspend() else { return nil }
            return transfer
        }
        guard let transfer = suspended else { return }
        notify(.sluiceTaskDidSuspend, task) { $0.taskDidSuspend(task) }
        engine.submit(.suspend(transfer))
    }

    func taskReleased(id: Int) {
        state.withLock { _ = $0.tasks.removeValue(forKey: id) }
    }

    func cancel(_ task: SessionTask) {
        let cancelled = task.mutable.withLock { state -> (started: Bool, Transfer)? in
            guard let transfer = state.transfer else { return nil }
            switch state.lifecycle.cancel() {
            case .none: return nil
            case .cancelTransfer: return (true, transfer)
            case .endTransfer: return (false, transfer)
            }
        }
        guard let (started, transfer) = cancelled else { return }
        endCancelled(task, transfer, started: started)
    }

    /// Ends a task whose lifecycle has just turned to cancelling: through the engine when it has the
    /// transfer, else here.
    private func endCancelled(_ task: SessionTask, _ transfer: Transfer, started: Bool) {
        let error = SluiceError(.cancelled, "the task was cancelled", request: task.currentRequest)
        if started && engine.submit(.cancel(transfer, error)) { return }
        transfer.end(.failure(error))
    }

    // MARK: Building tasks

    /// A suspended data or upload task whose completion runs on the configuration's completion queue.
    private func makeDataTask(
        kind: SessionTask.Kind, request: HTTPRequest,
        completion: @escaping @Sendable (Result<DataResponse, SluiceError>) -> Void
    ) -> SessionTask {
        let queue = configuration.completionQueue
        let sink = MemorySink()
        return makeTask(kind: kind, request: request, sink: sink) { result in
            let response = result.map { DataResponse(data: sink.data, $0) }
            queue.async { completion(response) }
        }.task
    }

    /// The file a download is written to: a new temporary file, or the partial file of `resumeData`
    /// (continued from its size), and why a resume starts over before asking the server (its partial
    /// file missing or changed, with ``ResumeData/PartialFilePolicy/startOver``).
    ///
    /// - Throws: ``SluiceError/Code/resumeDataInvalid`` for a missing or changed partial file with
    ///   ``ResumeData/PartialFilePolicy/fail``.
    private static func downloadSink(
        resuming resume: (data: ResumeData, policy: ResumeData.PartialFilePolicy)?, request: HTTPRequest
    ) throws(SluiceError) -> (FileSink, DownloadResumption.StartOverReason?) {
        guard let (resumeData, policy) = resume else { return (FileSink(path: FileSink.temporaryPath(), resumeOffset: 0), nil) }
        guard let problem = resumeData.partialFileProblem() else {
            var info = stat()
            let offset = stat(resumeData.partialFilePath, &info) == 0 ? Int64(info.st_size) : 0
            return (FileSink(path: resumeData.partialFilePath, resumeOffset: offset), nil)
        }
        switch policy {
        case .fail:
            throw SluiceError(.resumeDataInvalid, "cannot resume: \(problem.detail)", request: request)
        case .startOver:
            // A missing file starts in a new temporary file; a changed one is written over.
            let path = problem.reason == .partialFileMissing ? FileSink.temporaryPath() : resumeData.partialFilePath
            return (FileSink(path: path, resumeOffset: 0), problem.reason)
        }
    }

    /// Ends a download: its file moved where `destination` says, or removed (unless kept for resume
    /// data) when the task or the move failed.
    private static func deliver(
        download sink: FileSink, to destination: DownloadDestination, _ result: Result<Completed, SluiceError>
    ) -> Result<DownloadResponse, SluiceError> {
        sink.closeFile()
        let path = sink.path
        switch result {
        case .failure(let error):
            if !sink.keepsPartialFile { unlink(path) }
            return .failure(error)
        case .success(let outcome):
            do throws(SluiceError) {
                let target = destination(URL(fileURLWithPath: path), outcome.response)
                try move(path, to: target)
                return .success(DownloadResponse(fileURL: target, response: outcome.response, request: outcome.request, metrics: outcome.metrics))
            } catch {
                unlink(path)
                return .failure(SluiceError(error.code, error.message, request: outcome.request, response: outcome.response))
            }
        }
    }

    /// Moves a finished download into place: `rename` (atomic) on one file system, otherwise a copy
    /// next to the target and then `rename`.
    private static func move(_ path: String, to target: URL) throws(SluiceError) {
        var existing = stat()
        if lstat(target.path, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG {
            // Never replace a directory, device, socket or link with a download.
            throw SluiceError(.downloadFailed, "\(target.path) exists and is not a regular file")
        }
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw SluiceError(.downloadFailed, "cannot create \(target.deletingLastPathComponent().path): \(error)")
        }
        if rename(path, target.path) == 0 { return }
        guard errno == EXDEV else {
            throw SluiceError(.downloadFailed, "cannot move the download to \(target.path): \(String(cString: strerror(errno)))")
        }
        let staging = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).sluice-partial")
        do {
            try? FileManager.default.removeItem(at: staging)
            try FileManager.default.copyItem(atPath: path, toPath: staging.path)
        } catch {
            throw SluiceError(.downloadFailed, "cannot copy the download to \(target.path): \(error)")
        }
        guard rename(staging.path, target.path) == 0 else {
            unlink(staging.path)
            throw SluiceError(.downloadFailed, "cannot move the download to \(target.path): \(String(cString: strerror(errno)))")
        }
        unlink(path)
    }

    /// A suspended task and its transfer. With a `completion`, the transfer completes the task and
    /// calls it when it ends, and holds the task only once it is resumed (until then, whoever holds the
    /// task holds the transfer); without, a caller of the async API awaits it (see ``run(_:_:)``).
    private func makeTask(
        kind: SessionTask.Kind, request: HTTPRequest, sink: any ResponseSink,
        completion: (@Sendable (Result<Completed, SluiceError>) -> Void)? = nil
    ) -> (task: SessionTask, transfer: Transfer) {
        let id = nextTaskID.wrappingAdd(1, ordering: .relaxed).oldValue
        let task = SessionTask(id: id, kind: kind, request: request, controller: self)
        var ended: (@Sendable (Transfer, Transfer.Ending) -> Void)?
        if let completion {
            ended = { [weak self] transfer, ending in
                // A cancel racing the engine's own completion finds the task completed: nothing more.
                guard let completed = Self.complete(transfer, with: ending, session: self) else { return }
                completion(completed)
            }
        }
        let transfer = Transfer(task: task, request: request, configuration: sharedConfiguration, sink: sink, completion: ended)
        task.mutable.withLock { $0.transfer = transfer }
        // An awaited task is resumed at once and completes in its caller's frame; a task handed to the
        // caller is the caller's until resumed (the task holds its transfer, and the session, then).
        let registered = completion == nil ? RegisteredTask(holding: task) : RegisteredTask(referringTo: task)
        let invalidated = state.withLock { state -> Bool in
            if !state.invalidated { state.tasks[id] = registered }
            return state.invalidated
        }
        if invalidated {
            transfer.end(.failure(SluiceError(.sessionInvalidated, "the session was invalidated", request: request)))
        }
        return (task, transfer)
    }

    /// Completes a transfer's task with how the transfer ended, once: records the outcome, ends its
    /// progress streams, tells the observers and makes the response. Returns `nil` when the task had
    /// completed already.
    private static func complete(
        _ transfer: Transfer, with ending: Transfer.Ending, session: SessionManager?
    ) -> Result<Completed, SluiceError>? {
        let task = transfer.task
        var error: SluiceError?
        var metrics: TaskMetrics?
        switch ending {
        case .success: metrics = transfer.metrics
        case .failure(let failure): error = failure
        }
        var response: HTTPResponse?
        let continuations = task.mutable.withLock { state -> [AsyncStream<TransferProgress>.Continuation]? in
            switch state.lifecycle.complete() {
            case .alreadyCompleted:
                return nil
            case .cancelled where error?.code != .cancelled:
                // The caller was told of the cancel (resume data, say): it wins over the end that raced it.
                error = SluiceError(.cancelled, "the task was cancelled", request: state.currentRequest)
                metrics = nil
            case .cancelled, .asEnded:
                break
            }
            state.transfer = nil
            state.error = error
            if let metrics { state.metrics = metrics }
            if error == nil { response = state.madeResponse() }
            guard !state.progressContinuations.isEmpty else { return [] }
            defer { state.progressContinuations.removeAll() }
            return Array(state.progressContinuations.values)
        }
        guard let continuations else { return nil }
        session?.state.withLock { _ = $0.tasks.removeValue(forKey: task.id) }
        for continuation in continuations { continuation.finish() }
        // Observers first, then the task's own completion.
        session?.notify(
            .sluiceTaskDidComplete, task,
            userInfo: {
                var userInfo: [String: any Sendable] = [:]
                if let error { userInfo[Self.errorUserInfoKey] = error }
                if let metrics { userInfo[Self.metricsUserInfoKey] = metrics }
                return userInfo
            }
        ) {
            $0.taskDidComplete(task, error: error, metrics: metrics)
        }
        if let error { return .failure(error) }
        guard let metrics, let head = transfer.responseHead else { preconditionFailure("a transfer ends successfully with a response") }
        return .success(Completed(request: transfer.request, response: response ?? head.makeResponse(), metrics: metrics))
    }

    /// Tells the event monitors and, when the configuration asks for it, posts `name` (its `userInfo`
    /// is made only then).
    private func notify(
        _ name: Notification.Name, _ task: SessionTask, userInfo: () -> [String: any Sendable]? = { nil },
        monitor: (any EventMonitor) -> Void
    ) {
        for eventMonitor in eventMonitors { monitor(eventMonitor) }
        if configuration.postsTaskNotifications {
            NotificationCenter.default.post(name: name, object: task, userInfo: userInfo())
        }
    }

    /// A data or upload task of the async API, run to completion, with its body collected in memory.
    func runData(
        kind: SessionTask.Kind, request: HTTPRequest, _ didCreateTask: (@Sendable (SessionTask) -> Void)?,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SluiceError) -> DataResponse {
        let sink = MemorySink()
        // The body is read once the task completed.
        let completed = try await run(
            makeTask(kind: kind, request: request, sink: sink).transfer, didCreateTask, progress: progress
        ).get()
        return DataResponse(data: sink.data, completed)
    }

    /// A download of the async API, run to completion and moved where `destination` says.
    func runDownload(
        request: HTTPRequest, resuming resume: (data: ResumeData, policy: ResumeData.PartialFilePolicy)?,
        to destination: DownloadDestination, _ didCreateTask: (@Sendable (SessionTask) -> Void)?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws(SluiceError) -> DownloadResponse {
        let (sink, startedOver) = try Self.downloadSink(resuming: resume, request: request)
        var request = request
        if resume != nil {
            // The saved headers may hold the range of an earlier resume; this one asks from the file's size.
            request.headers.remove("Range")
            request.headers.remove("If-Range")
        }
        if sink.resumeOffset > 0 {
            // The range is asked for here, not with curl's resume option: curl fails a resumed transfer
            // whose server answers 200 (CURLE_RANGE_ERROR), where the file should start over.
            try? request.headers.set(name: "Range", value: "bytes=\(sink.resumeOffset)-")
            if let validator = resume?.data.validator { try? request.headers.set(name: "If-Range", value: validator) }
        }
        let ended = await run(makeTask(kind: .download, request: request, sink: sink).transfer, didCreateTask, progress: progress)
        var response = try Self.deliver(download: sink, to: destination, ended).get()
        if resume != nil {
            if let startedOver {
                response.resumption = .startedOver(startedOver)
            } else if sink.continuedPartialFile || (sink.resumeOffset == 0 && response.response.statusCode == 200) {
                response.resumption = .continued(fromByte: sink.resumeOffset)
            } else if response.response.statusCode == 200 {
                response.resumption = .startedOver(.serverSentWholeBody)
            }
        }
        return response
    }

    /// Runs an awaited transfer's task to completion for the async API, cancelling it when the calling
    /// task is cancelled.
    ///
    /// The engine resumes this code with the transfer's result and the task completes here, on the
    /// caller's own thread, which is the one thread that must wake for the answer.
    ///
    /// A `progress` handler follows the task's progress stream from before the task starts, so no
    /// report is lost; after a success it is called a last time with the final counts unless its last
    /// report had them, and this returns only once it has been called for the last time.
    private func run(
        _ transfer: Transfer, _ didCreateTask: (@Sendable (SessionTask) -> Void)? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async -> Result<Completed, SluiceError> {
        let task = transfer.task
        let relay = progress.map { ProgressForwarder(task: task, handler: $0) }
        didCreateTask?(task)
        // A cancel before the wait (this task was cancelled already) ends the transfer at once: the
        // wait then returns its result, and the resume finds the task cancelled.
        let ended = await withTaskCancellationHandler {
            await withUnsafeContinuation { awaiter in
                transfer.wait(awaiter)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        transfer.ended()
        // Only this code completes an awaited task: whichever path ended the transfer resumed it once.
        guard let completed = Self.complete(transfer, with: ended, session: self) else {
            preconditionFailure("an awaited task is completed by its caller alone")
        }
        // Completing the task ended its progress streams: the forwarder has seen every report.
        if let relay {
            let final: TransferProgress?
            if case .success = completed {
                let counts = task.mutable.withLock { $0.progress }
                final = TransferProgress(
                    bytesSent: counts.sent, totalBytesToSend: counts.totalToSend >= 0 ? counts.totalToSend : counts.sent,
                    bytesReceived: counts.received,
                    totalBytesExpected: counts.totalExpected >= 0 ? counts.totalExpected : counts.received)
            } else {
                final = nil
            }
            await relay.finish(final: final)
        }
        return completed
    }
}

/// Where the head of a ``SessionManager/bytes(for:)`` stream stands between the transfer and its caller.
private enum HeadHandoff {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, SluiceError>, Never>
    /// Neither has arrived.
    case empty
    /// The result arrived first.
    case delivered(Result<HTTPResponse, SluiceError>)
    /// The caller waits.
    case awaiting(Continuation)
    /// The caller has the result.
    case done
}

/// A task's successful end as its completion sees it: the final request, the response and the metrics.
private struct Completed {
    let request: HTTPRequest
    let response: HTTPResponse
    let metrics: TaskMetrics
}

extension DataResponse {
    /// A completed task's response with the body it collected.
    fileprivate init(data: Data, _ completed: Completed) {
        self.init(data: data, response: completed.response, request: completed.request, metrics: completed.metrics)
    }
}
