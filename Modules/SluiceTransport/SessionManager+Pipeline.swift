import Foundation
import SluiceCore
import Synchronization

/// How every API of the session runs: a task and its pipeline call, the chain run from the top, the
/// body delivered, the task completed.
extension SessionManager {
    /// A task's successful end as its completion sees it: the final request, the response and the metrics.
    ///
    /// A class: an outcome is handed through several steps (the chain's end, the task's completion, the
    /// caller's response), and a copy of the three values would retain each of their parts every time.
    final class Completed: Sendable {
        let request: HTTPRequest
        let response: HTTPResponse
        let metrics: TaskMetrics

        init(request: HTTPRequest, response: HTTPResponse, metrics: TaskMetrics) {
            self.request = request
            self.response = response
            self.metrics = metrics
        }
    }

    /// What a call ran to: its completed task's answer and the body where the caller asked for it.
    typealias Outcome = Result<(Completed, DeliveredBody), SluiceError>

    // MARK: Making calls

    /// A task of the async API and its call, registered with the session (which holds the task until it
    /// completes: its caller awaits it).
    func makeCall(kind: SessionTask.Kind, request: HTTPRequest, sink: CallSink) -> PipelineCall {
        let task = SessionTask(id: nextTaskID.wrappingAdd(1, ordering: .relaxed).oldValue, kind: kind, request: request, controller: self)
        let call = PipelineCall(session: self, task: task, sink: sink)
        task.mutable.withLock { $0.call = call }
        call.madeOnInvalidatedSession = state.withLock { state in
            if !state.invalidated { state.tasks[task.id] = RegisteredTask(holding: task) }
            return state.invalidated
        }
        return call
    }

    /// A suspended task of the completion-handler API. When first resumed it runs its call in a Swift
    /// task of its own and hands what it ran to to `finish`; cancelled before that, or made on an
    /// invalidated session, it hands `finish` the error at once.
    func makeHandlerTask(
        kind: SessionTask.Kind, request: HTTPRequest, sink: CallSink,
        finish: @escaping @Sendable (Outcome) -> Void
    ) -> SessionTask {
        let task = SessionTask(id: nextTaskID.wrappingAdd(1, ordering: .relaxed).oldValue, kind: kind, request: request, controller: self)
        let starter: @Sendable (SessionTask, SluiceError?) -> Void = { [self] task, failure in
            if let failure {
                finish(complete(task, .failure(failure)).map { ($0, DeliveredBody.data(Data())) })
                return
            }
            let call = PipelineCall(session: self, task: task, sink: sink)
            if case .stream(let stream) = sink { stream.reference.call = call }
            task.mutable.withLock { $0.call = call }
            call.setRunner(Task { finish(self.finish(call, await call.run())) })
        }
        task.mutable.withLock { $0.starter = starter }
        // The caller holds a suspended task; the session only refers to it (see `RegisteredTask`).
        let invalidated = state.withLock { state -> Bool in
            if !state.invalidated { state.tasks[task.id] = RegisteredTask(referringTo: task) }
            return state.invalidated
        }
        if invalidated, let starter = task.mutable.withLock({ state in defer { state.starter = nil }; return state.starter }) {
            starter(task, SluiceError(.sessionInvalidated, "the session was invalidated", request: request))
        }
        return task
    }

    /// A suspended data or upload task whose completion runs on the configuration's completion queue.
    func makeDataTask(
        kind: SessionTask.Kind, request: HTTPRequest,
        completion: @escaping @Sendable (Result<DataResponse, SluiceError>) -> Void
    ) -> SessionTask {
        let queue = configuration.completionQueue
        return makeHandlerTask(kind: kind, request: request, sink: .memory(MemorySink())) { outcome in
            let response = outcome.map { completed, body in DataResponse(completed, body: body) }
            queue.async { completion(response) }
        }
    }

    // MARK: Running calls

    /// A data or upload task of the async API, run to completion, with its body collected in memory.
    func runData(
        kind: SessionTask.Kind, request: HTTPRequest, _ didCreateTask: (@Sendable (SessionTask) -> Void)?,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SluiceError) -> DataResponse {
        let call = makeCall(kind: kind, request: request, sink: .memory(MemorySink()))
        let (completed, body) = try await run(call, didCreateTask, progress: progress).get()
        return DataResponse(completed, body: body)
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
        let call = makeCall(kind: .download, request: request, sink: .file(sink))
        let ended = await run(call, didCreateTask, progress: progress)
        var response = try Self.finishDownload(sink, to: destination, ended).get()
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

    /// ``bytes(for:)``, telling `didCreateTask` of the task before it starts and returning it.
    func runStream(
        request: HTTPRequest, _ didCreateTask: (@Sendable (SessionTask) -> Void)?
    ) async throws(SluiceError) -> (ByteStream, HTTPResponse, SessionTask) {
        let sink = StreamSink(limit: configuration.streamBufferLimit)
        let call = makeCall(kind: .stream, request: request, sink: .stream(sink))
        sink.reference.call = call
        let (completed, body) = try await run(call, didCreateTask).get()
        guard case .stream(let stream) = body else { preconditionFailure("a streamed call delivers a stream") }
        return (stream, completed.response, call.task)
    }

    /// Runs an awaited call for the async API, cancelling its task when the calling task is cancelled,
    /// and completes the task on the caller's own thread.
    ///
    /// A `progress` handler follows the task's progress stream from before the task starts, so no
    /// report is lost; after a success it is called a last time with the final counts unless its last
    /// report had them, and this returns only once it has been called for the last time.
    private func run(
        _ call: PipelineCall, _ didCreateTask: (@Sendable (SessionTask) -> Void)? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async -> Outcome {
        let task = call.task
        let relay = progress.map { ProgressForwarder(task: task, handler: $0) }
        didCreateTask?(task)
        let ran: Result<(answer: HTTPLayerResponse, body: DeliveredBody), SluiceError>
        if let refusal = begin(task, invalidated: call.madeOnInvalidatedSession) {
            ran = .failure(refusal)
        } else {
            ran = await withTaskCancellationHandler {
                await call.run()
            } onCancel: {
                task.cancel()
            }
        }
        let outcome = finish(call, ran)
        // Completing the task ended its progress streams: the forwarder has seen every report.
        if let relay {
            let final: TransferProgress?
            if case .success = outcome, call.destination != .stream {
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
        return outcome
    }

    /// Starts an awaited task: returns why it cannot start (cancelled already, the session invalidated).
    func begin(_ task: SessionTask, invalidated: Bool) -> SluiceError? {
        guard task.mutable.withLock({ $0.lifecycle.resume() == .start }) else {
            return SluiceError(.cancelled, "the task was cancelled", request: task.currentRequest)
        }
        notify(.sluiceTaskDidResume, task) { $0.taskDidResume(task) }
        if invalidated {
            return SluiceError(.sessionInvalidated, "the session was invalidated", request: task.currentRequest)
        }
        return nil
    }

    /// Completes a call's task with what its chain ran to: a streamed call's success completes at the
    /// end of its body instead.
    func finish(_ call: PipelineCall, _ ran: Result<(answer: HTTPLayerResponse, body: DeliveredBody), SluiceError>) -> Outcome {
        switch ran {
        case .failure(let error):
            if let buffer = call.target.streamBuffer {
                call.abandonStream(error)
                buffer.finish(error)
            }
            return complete(call.task, .failure(error)).map { ($0, .data(Data())) }
        case .success(let (answer, body)):
            // An answer from the network ends with its last hop (known without reading the clock again).
            let (start, lastHopEnd) = call.times
            let end = answer.source.usedNetwork ? lastHopEnd ?? Date() : Date()
            let metrics = TaskMetrics(
                transactions: answer.recordedTransactions, startDate: start, duration: end.timeIntervalSince(start))
            let completed = Completed(request: answer.request, response: answer.response, metrics: metrics)
            if call.destination == .stream { return .success((completed, body)) }
            return complete(call.task, .success(completed)).map { ($0, body) }
        }
    }

    /// Completes `task` once: records the outcome (a cancel the caller was told of wins over an end
    /// that raced it), ends its progress streams, tells the observers. Returns the outcome the task
    /// completed with.
    func complete(_ task: SessionTask, _ outcome: Result<Completed, SluiceError>) -> Result<Completed, SluiceError> {
        // The outcome is only borrowed here (each copy of a completed answer retains its request, its
        // response's parts and its metrics); `replaced` is the error it gives way to, when one does.
        var replaced: SluiceError?
        var onComplete: (@Sendable (Result<TaskMetrics, SluiceError>) -> Void)?
        let continuations = task.mutable.withLock { state -> [AsyncStream<TransferProgress>.Continuation]? in
            switch state.lifecycle.complete() {
            case .alreadyCompleted:
                replaced = state.error ?? SluiceError(.cancelled, "the task was cancelled", request: state.currentRequest)
                return nil
            case .cancelled:
                if case .failure(let error) = outcome, error.code == .cancelled { break }
                replaced = SluiceError(.cancelled, "the task was cancelled", request: state.currentRequest)
            case .asEnded:
                break
            }
            state.transfer = nil
            state.call = nil
            state.starter = nil
            onComplete = state.onComplete
            state.onComplete = nil
            if let replaced {
                state.error = replaced
            } else {
                switch outcome {
                case .success(let completed):
                    state.metrics = completed.metrics
                    state.response = completed.response
                case .failure(let error):
                    state.error = error
                }
            }
            guard !state.progressContinuations.isEmpty else { return [] }
            defer { state.progressContinuations.removeAll() }
            return Array(state.progressContinuations.values)
        }
        guard let continuations else { return .failure(replaced!) }
        let lastDrained = state.withLock { state -> Bool in
            state.tasks.removeValue(forKey: task.id)
            return state.draining.remove(task.id) != nil && state.draining.isEmpty
        }
        // The session was invalidated without cancelling, and this was the last task it waited for.
        if lastDrained { engine.submit(.stop(cancelling: false)) }
        for continuation in continuations { continuation.finish() }
        let error: SluiceError?
        let metrics: TaskMetrics?
        if let replaced {
            (error, metrics) = (replaced, nil)
        } else {
            switch outcome {
            case .success(let completed): (error, metrics) = (nil, completed.metrics)
            case .failure(let failure): (error, metrics) = (failure, nil)
            }
        }
        // Observers first, then the task's own completion.
        notify(
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
        if let onComplete { onComplete(metrics.map { .success($0) } ?? .failure(error!)) }
        if let replaced { return .failure(replaced) }
        return outcome
    }

    /// Tells the event monitors and, when the configuration asks for it, posts `name` (its `userInfo`
    /// is made only then).
    func notify(
        _ name: Notification.Name, _ task: SessionTask, userInfo: () -> [String: any Sendable]? = { nil },
        monitor: (any EventMonitor) -> Void
    ) {
        for eventMonitor in eventMonitors { monitor(eventMonitor) }
        if configuration.postsTaskNotifications {
            NotificationCenter.default.post(name: name, object: task, userInfo: userInfo())
        }
    }

    // MARK: Hops on the engine

    /// Makes `transfer` the task's hop on the network, unless the task was cancelled. Returns whether the
    /// task is suspended (the hop then starts paused).
    ///
    /// - Throws: ``SluiceError/Code/cancelled`` for a cancelled task.
    func attach(_ transfer: Transfer, to task: SessionTask) throws(SluiceError) -> Bool {
        let suspended = task.mutable.withLock { state -> Bool? in
            if state.lifecycle.wasCancelled || state.state == .completed { return nil }
            state.transfer = transfer
            return state.state == .suspended
        }
        guard let suspended else { throw SluiceError(.cancelled, "the task was cancelled", request: transfer.request) }
        return suspended
    }

    /// The hop ended: the task has no transfer on the network until the next.
    func detach(_ transfer: Transfer, from task: SessionTask) {
        task.mutable.withLock { state in
            if state.transfer === transfer { state.transfer = nil }
        }
    }

    /// Hands a hop to the engine (paused when the task is suspended); one the engine no longer takes
    /// ends with ``SluiceError/Code/sessionInvalidated``.
    func start(_ transfer: Transfer, suspended: Bool) {
        guard engine.submit(.start(transfer)) else {
            return transfer.end(.failure(SluiceError(.sessionInvalidated, "the session was invalidated", request: transfer.request)))
        }
        if suspended { engine.submit(.suspend(transfer)) }
    }

    /// Stops `transfer` with `error`, on the engine or here when the engine no longer takes commands.
    func cancelTransfer(_ transfer: Transfer, _ error: SluiceError) {
        transfer.cancelRequested.store(true, ordering: .releasing)
        if !engine.submit(.cancel(transfer, error)) { transfer.end(.failure(transfer.attach(error))) }
    }

    /// The stream's reader caught up with `transfer`.
    func continueStream(_ transfer: Transfer) { engine.submit(.continueStream(transfer)) }
}

extension DataResponse {
    /// A completed task's response with the body delivered in memory.
    init(_ completed: SessionManager.Completed, body: DeliveredBody) {
        guard case .data(let data) = body else { preconditionFailure("a data task delivers its body in memory") }
        self.init(data: data, response: completed.response, request: completed.request, metrics: completed.metrics)
    }
}
