import Foundation
import SluiceCore
import Synchronization

/// One call of a session's API on its way through the session's pipeline: the chain of steps (the
/// caller's layers, follow-ups, bridge, cache slot, network layers, exchange) and what the call keeps
/// between its hops.
///
/// Every API form makes one: async and completion-handler, data, upload, download (resumed or not) and
/// stream. The call runs the chain from the top, delivers the answer's body where the caller asked
/// (memory, a file, a stream; ``PipelineCall/deliver(_:)``), and its task completes with the answer
/// whether the network, the cache or a layer gave it.
final class PipelineCall: HTTPLayerChain, @unchecked Sendable {
    let session: SessionManager
    let task: SessionTask
    /// Where the network writes the body: memory, the download's file, the stream's buffer.
    let target: CallSink
    /// The sink the transfers write to.
    var sink: any ResponseSink { target.responseSink }
    let destination: HTTPLayerContext.Destination
    /// When the call started: its resource timeout counts from here. Taken by its first hop's transfer
    /// as it configures its handle (a clock read the transfer makes anyway), or here before a hop
    /// that is not the first, or by the delivery of an answer no transfer gave.
    var startedAt: MonotonicInstant { clock().started }
    /// When the call started, for its metrics.
    var startDate: Date { clock().date }

    /// When the call started: as its first hop's transfer noted it, else now (noted for what follows).
    func clock() -> Clock {
        state.withLock { state in
            if let clock = state.clock { return clock }
            let now = Clock.now()
            state.clock = now
            return now
        }
    }

    /// Notes a hop's transfer: its start is the call's when it is the first, and its end the last
    /// hop's end (the call's metrics end there without another read of the clock, which costs about a
    /// microsecond on some virtual machines).
    func noteHop(_ transfer: Transfer, ended: Bool) {
        guard let started = transfer.startedAt else { return }
        let date = transfer.startDate
        // A streamed hop runs on after its head: its end is read when its body ends, not here.
        let end = ended ? date.addingTimeInterval(transfer.metrics.duration) : nil
        state.withLock { state in
            if state.clock == nil { state.clock = Clock(started: started, date: date) }
            if let end { state.lastHopEnd = end }
        }
    }

    /// When the call started and when its last hop on the network ended (`nil` when none did).
    var times: (start: Date, lastHopEnd: Date?) {
        let known = state.withLock { ($0.clock, $0.lastHopEnd) }
        return (known.0?.date ?? clock().date, known.1)
    }
    /// Seconds the whole call may take: the request's own, else the session's.
    let resourceTimeout: TimeInterval?

    /// What one hop is to be sent with: the follow-ups set it before they pass the hop on.
    struct Hop: Sendable {
        var credential: Credential?
        var followUpRule = FollowUps.Rule()
        var sendsBodyAgain = false
        var leftOriginalOrigin = false
        /// `Basic …` for a Basic-only credential, added by the bridge (unless the request has its own
        /// `Authorization`).
        var basicAuthorization: String?
    }

    /// When the call started, once known.
    struct Clock: Sendable {
        var started: MonotonicInstant
        var date: Date

        static func now() -> Clock { Clock(started: .now, date: Date()) }
    }

    private struct State: Sendable {
        var clock: Clock?
        var lastHopEnd: Date?
        var hop = Hop()
        /// Called when the task is cancelled while the call waits for something other than a transfer
        /// (a handler's answer, a layer's stream).
        var cancelHook: (@Sendable () -> Void)?
        var cancelled = false
        /// The Swift task running a completion-handler call, cancelled with the task.
        var runner: Task<Void, Never>?
    }
    private let state: Mutex<State>

    /// What a streamed call keeps besides, under a lock of its own (made for streamed calls only: it is
    /// large, and every call would otherwise allocate and clear it).
    ///
    /// A lock on pthreads, not a `Mutex`: a streamed body's end and the answer coming up the chain often
    /// reach it at the same moment, and a contended `Mutex` on Linux is handed over by the kernel (a
    /// priority-inheriting futex), a hand-over ThreadSanitizer cannot see; it then reported the two
    /// threads' accesses to this state as races.
    private let streaming: Locked<Streaming>?

    /// What a streamed call keeps.
    struct Streaming: @unchecked Sendable {
        /// A streamed hop's head or end.
        var headHandoff = HeadHandoff<CheckedContinuation<Result<Void, SluiceError>, Never>>()
        /// The answer a streamed call returned at its head: the task completes with it at the body's end.
        var streamAnswer: (request: HTTPRequest, response: HTTPResponse, transactions: [TaskMetrics.Transaction])?
        /// The transfer of a streamed call's last hop, while its body arrives.
        var streamTransfer: Transfer?
        /// A layer's stream being copied into the caller's stream, waiting for the reader.
        var pumpWaiter: CheckedContinuation<Void, Never>?
        /// A streamed body that ended before its answer came up the chain (a short body, a layer still
        /// returning): it ends the stream once the answer is in.
        var earlyEnd: (result: Result<Void, SluiceError>, transfer: Transfer?)?
    }

    /// The queue a streamed request body is read on, the same for every hop of the call (made only for a
    /// call whose request has a body stream).
    let bodyReadQueue: DispatchQueue?

    /// Whether the session was invalidated when the call was made: it fails as it begins.
    var madeOnInvalidatedSession = false

    init(session: SessionManager, task: SessionTask, sink: CallSink) {
        self.session = session
        self.task = task
        self.target = sink
        bodyReadQueue = task.originalRequest.hasBodyStream ? BodyReadAhead.makeQueue() : nil
        self.resourceTimeout = task.originalRequest.resourceTimeout ?? session.sharedConfiguration.value.resourceTimeout
        destination = sink.destination
        self.state = Mutex(State())
        streaming = destination == .stream ? Locked(Streaming()) : nil
    }

    // MARK: The chain

    /// Runs step `position` of the session's pipeline.
    func send(_ request: HTTPRequest, context: HTTPLayerContext, at position: Int) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let stages = session.stages
        guard position < stages.count else {
            throw SluiceError(.transportFailed, "the pipeline has no step below the exchange", request: request)
        }
        switch stages[position] {
        case .layer(let layer):
            return try await layer.send(request, context: context, next: HTTPLayerNext(chain: self, position: position + 1))
        case .followUps:
            return try await followUps(request, context: context, below: position + 1)
        case .bridge:
            let hop = state.withLock { $0.hop }
            let prepared = Bridge.prepare(
                request, configuration: session.sharedConfiguration, leftOriginalOrigin: hop.leftOriginalOrigin,
                authorization: hop.basicAuthorization)
            // With nothing between the bridge and the network, straight to the exchange: no frame more.
            let answer =
                if case .exchange = stages[position + 1] {
                    try await exchange(prepared, context: context)
                } else {
                    try await send(prepared, context: context, at: position + 1)
                }
            Bridge.storeCookies(of: answer, for: prepared, configuration: session.sharedConfiguration)
            return answer
        case .exchange:
            return try await exchange(request, context: context)
        }
    }

    /// The bridge and the exchange of one hop, with nothing between them (``passesStraightDown(from:)``).
    private func exchangeThroughBridge(
        _ request: HTTPRequest, context: HTTPLayerContext, hop: Hop
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let shared = session.sharedConfiguration
        let prepared = Bridge.prepare(
            request, configuration: shared, leftOriginalOrigin: hop.leftOriginalOrigin, authorization: hop.basicAuthorization)
        let answer = try await exchange(prepared, context: context, hop: hop)
        Bridge.storeCookies(of: answer, for: prepared, configuration: shared)
        return answer
    }

    /// A chain that runs one request as a call of its own (``HTTPLayerNext/detached``).
    func detachedChain() -> (any HTTPLayerChain)? { DetachedChain(session: session) }

    /// Whether nothing sits between the bridge at `position` and the exchange (no cache, no network
    /// layer): the follow-ups then pass each hop straight down, two frames and two locks less per hop.
    private func passesStraightDown(from position: Int) -> Bool {
        let stages = session.stages
        guard position + 1 < stages.count, case .bridge = stages[position], case .exchange = stages[position + 1] else { return false }
        return true
    }

    /// Runs the whole chain for the task's request and delivers the answer's body.
    func run() async -> Result<(answer: HTTPLayerResponse, body: DeliveredBody), SluiceError> {
        do throws(SluiceError) {
            let context = HTTPLayerContext(task: task, destination: destination)
            // Straight into the first step when it is the follow-ups (no layer above them): a frame less
            // on every call's stack.
            let answer =
                if case .followUps = session.stages[0] {
                    try await followUps(task.originalRequest, context: context, below: 1)
                } else {
                    try await send(task.originalRequest, context: context, at: 0)
                }
            // The network's own body in memory needs no delivering.
            if destination == .memory, answer.source == .network, answer.body.observers.isEmpty, let data = answer.body.data {
                return .success((answer, .data(data)))
            }
            return .success((answer, try await deliver(answer)))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Follow-ups

    /// The follow-up step: sends hops until one is the answer, following redirects and answering 401s
    /// as the policy and the challenge handler say, with each hop's request and head told to the
    /// session's event monitors.
    private func followUps(
        _ request: HTTPRequest, context: HTTPLayerContext, below position: Int
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let shared = session.sharedConfiguration
        var planner = FollowUps(
            kind: task.kind, policy: request.redirectPolicy ?? shared.value.redirectPolicy,
            hasChallengeHandler: shared.value.authenticationChallengeHandler != nil)
        var hopRequest = request
        var context = context
        var credential = shared.value.credential
        let originalURL = request.url
        // The transactions of the hops before this one (none for most calls, whose first hop is the answer).
        var earlier: [TaskMetrics.Transaction] = []
        while true {
            if context.hop > 0 {
                // Between hops (the first is checked as its transfer is attached, and by its clock).
                try context.checkCancellation(hopRequest)
                if let error = resourceTimeoutError(hopRequest) { throw error }
            }
            var hop = Hop(
                credential: credential.flatMap { RedirectPlanner.sameOrigin(hopRequest.url, originalURL) ? $0 : nil },
                followUpRule: planner.rule, sendsBodyAgain: context.hop > 0, leftOriginalOrigin: planner.leftOriginalOrigin)
            // A Basic-only credential is a header the bridge adds, so the layers below see it; one that
            // allows Digest stays libcurl's (it answers the challenge within the exchange).
            if let basic = hop.credential, basic.schemes == [.basic] {
                hop.basicAuthorization = Bridge.basicAuthorization(basic)
                hop.credential = nil
            }
            let direct = passesStraightDown(from: position)
            // Layers between the follow-ups and the exchange: the bridge and the exchange read the hop here.
            if !direct { state.withLock { $0.hop = hop } }
            if !session.eventMonitors.isEmpty {
                for monitor in session.eventMonitors { monitor.task(task, willSend: hopRequest, hop: context.hop) }
            }
            let answer =
                if direct {
                    try await exchangeThroughBridge(hopRequest, context: context, hop: hop)
                } else {
                    try await send(hopRequest, context: context, at: position)
                }
            if !session.eventMonitors.isEmpty {
                for monitor in session.eventMonitors {
                    monitor.task(task, didReceive: answer.response, for: answer.request, from: answer.source, hop: context.hop)
                }
            }
            // Most answers are delivered on their status alone: no action is made for them.
            if planner.delivers(statusCode: answer.response.statusCode) { return Self.delivered(answer, after: earlier) }
            var action = planner.answered(hopRequest, with: answer.response)
            decide: while true {
                switch action {
                case .deliver:
                    return Self.delivered(answer, after: earlier)
                case .fail(let error):
                    throw error
                case .follow(let next):
                    earlier += answer.recordedTransactions
                    hopRequest = next
                    task.mutable.withLock { $0.currentRequest = next }
                    context.hop += 1
                    break decide
                case .retry(let offered):
                    earlier += answer.recordedTransactions
                    credential = offered
                    context.hop += 1
                    break decide
                case .askPolicy(let proposed, let leavesOrigin):
                    guard case .decide(_, let decide) = planner.policy else { preconditionFailure("only a deciding policy is asked") }
                    let response = answer.response
                    let chosen = try await ask({ decide(proposed, response) }, request: hopRequest)
                    action = planner.policyAnswered(chosen, leavesOrigin: leavesOrigin)
                case .askChallengeHandler:
                    guard let handler = shared.value.authenticationChallengeHandler else { preconditionFailure("asked without a handler") }
                    let (asked, response) = (hopRequest, answer.response)
                    let offered = try await ask({ handler(asked, response) }, request: hopRequest)
                    action = planner.challengeAnswered(offered)
                }
            }
        }
    }

    /// The call's answer, `answer`, carrying the transactions of the hops before it (`earlier`) and its
    /// own; the network's answer to a call's only hop carries its own already and is returned as it is.
    private static func delivered(_ answer: consuming HTTPLayerResponse, after earlier: [TaskMetrics.Transaction]) -> HTTPLayerResponse {
        if !earlier.isEmpty {
            answer.transactions = earlier + answer.recordedTransactions
        } else if answer.transactions.isEmpty, !answer.source.usedNetwork {
            answer.transactions = answer.recordedTransactions
        }
        return answer
    }

    /// Asks the caller's code off every engine thread, ending at once when the task is cancelled or the
    /// call's resource timeout passes.
    private func ask<Answer: Sendable>(
        _ question: @escaping @Sendable () -> Answer, request: HTTPRequest
    ) async throws(SluiceError) -> Answer {
        let deadline = resourceTimeout.map { startedAt + .milliseconds(Int($0 * 1000)) }
        let limit = resourceTimeout ?? 0
        return try await PendingDecision.ask(
            question, for: self, request: request, deadline: deadline,
            timeoutError: { SluiceError(.resourceTimedOut, "the transfer took longer than \(limit) s", request: request) })
    }

    /// The resource-timeout error once the call has run longer than its resource timeout.
    private func resourceTimeoutError(_ request: HTTPRequest) -> SluiceError? {
        guard let limit = resourceTimeout, MonotonicInstant.now - startedAt >= .milliseconds(Int(limit * 1000)) else { return nil }
        return SluiceError(.resourceTimedOut, "the transfer took longer than \(limit) s", request: request)
    }

    /// The settings of the hop the follow-ups are sending, and the call's start as known so far.
    var hopAndStart: (Hop, MonotonicInstant?) { state.withLock { ($0.hop, $0.clock?.started) } }

    /// The call's start as known so far (`nil` before its first hop was configured).
    var knownStart: MonotonicInstant? { state.withLock { $0.clock?.started } }

    // MARK: Cancellation

    /// Sets (or with `nil`, clears) what cancelling the task does while the call waits for something
    /// other than a transfer; runs it at once when the task was cancelled already.
    func whileWaiting(_ hook: (@Sendable () -> Void)?) {
        let runNow = state.withLock { state -> Bool in
            if hook != nil && state.cancelled { return true }
            state.cancelHook = hook
            return false
        }
        if runNow { hook?() }
    }

    /// Runs a completion-handler call's chain in `runner`, cancelled with the task.
    func setRunner(_ runner: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            state.runner = runner
            return state.cancelled
        }
        if cancelled { runner.cancel() }
    }

    /// The task was cancelled: ends what the call waits for besides its transfer (the session cancels that).
    func cancelled() {
        let (hook, runner) = state.withLock { state -> ((@Sendable () -> Void)?, Task<Void, Never>?) in
            state.cancelled = true
            defer { state.cancelHook = nil }
            return (state.cancelHook, state.runner)
        }
        hook?()
        runner?.cancel()
    }

    // MARK: Streamed hops

    /// The stream's reader caught up: the transfer (or a layer's stream being copied) may go on.
    func streamCanContinue() {
        let (transfer, pump) = streaming!.withLock { streaming -> (Transfer?, CheckedContinuation<Void, Never>?) in
            defer { streaming.pumpWaiter = nil }
            return (streaming.streamTransfer, streaming.pumpWaiter)
        }
        if let transfer { session.continueStream(transfer) }
        pump?.resume()
    }

    /// Waits until the stream's reader has caught up with a layer's stream being copied into it.
    func waitForReader() async {
        await withCheckedContinuation { continuation in
            let ready = streaming!.withLock { streaming -> Bool in
                // The reader may have caught up already: the buffer said so by resuming nobody.
                guard let buffer = target.streamBuffer, buffer.isFull else { return true }
                streaming.pumpWaiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Starts waiting for a streamed hop's head or end; returns the result when it came first.
    func waitForHead(_ continuation: CheckedContinuation<Result<Void, SluiceError>, Never>) -> Result<Void, SluiceError>? {
        streaming!.withLock { $0.headHandoff.wait(continuation) }
    }

    /// Called by the streamed call once resumed with its head, before it reads what the engine left in
    /// the transfer (its head, any body kept aside): taking the lock the engine released as it handed the
    /// head over orders those reads after the engine's writes by this lock, not only by the continuation
    /// (which ThreadSanitizer cannot see when the head arrives before the caller has finished suspending).
    func headTaken() { streaming!.withLock { _ in } }

    /// A streamed hop's head arrived, or its transfer ended (`transfer` then).
    func streamHopEvent(_ result: Result<Void, SluiceError>, ended transfer: Transfer?) {
        let arrival = streaming!.withLock { streaming -> HeadHandoff<CheckedContinuation<Result<Void, SluiceError>, Never>>.Arrival in
            let arrival = streaming.headHandoff.arrive(result)
            if case .afterHandover = arrival, transfer != nil { streaming.streamTransfer = nil }
            return arrival
        }
        switch arrival {
        case .resume(let waiter): waiter.resume(returning: result)
        case .kept: break
        case .afterHandover:
            if let transfer { streamBodyEnded(result, transfer: transfer) }
        }
    }

    /// Notes the transfer whose body the stream now carries.
    func streamStarted(_ transfer: Transfer) {
        streaming!.withLock { $0.streamTransfer = transfer }
    }

    /// Resets the hand-off for a streamed call's next hop.
    func streamHopBegins() { streaming!.withLock { $0.headHandoff.reset() } }

    /// The call failed after a streamed hop's head (a layer above threw): the transfer still carrying
    /// the body is stopped.
    func abandonStream(_ error: SluiceError) {
        guard let transfer = streaming?.withLock({ streaming in defer { streaming.streamTransfer = nil }; return streaming.streamTransfer }) else { return }
        session.cancelTransfer(transfer, error)
    }

    /// Keeps the answer a streamed call returned at its head, for the task's completion at its end; ends
    /// the stream at once when its body ended already.
    func streamAnswered(_ answer: HTTPLayerResponse) {
        let recorded = (answer.request, answer.response, answer.recordedTransactions)
        let early = streaming!.withLock { streaming -> (result: Result<Void, SluiceError>, transfer: Transfer?)? in
            streaming.streamAnswer = recorded
            defer { streaming.earlyEnd = nil }
            return streaming.earlyEnd
        }
        if let early { endStream(early.result, transfer: early.transfer, answer: recorded) }
    }

    /// The streamed body ended (the network's, or a layer's copied in): the stream ends and the task
    /// completes, once the answer is in.
    func streamBodyEnded(_ result: Result<Void, SluiceError>, transfer: Transfer?) {
        let answer = streaming!.withLock { streaming -> (request: HTTPRequest, response: HTTPResponse, transactions: [TaskMetrics.Transaction])? in
            if streaming.streamAnswer == nil { streaming.earlyEnd = (result, transfer) }
            return streaming.streamAnswer
        }
        if let answer { endStream(result, transfer: transfer, answer: answer) }
    }

    private func endStream(
        _ result: Result<Void, SluiceError>, transfer: Transfer?,
        answer: (request: HTTPRequest, response: HTTPResponse, transactions: [TaskMetrics.Transaction])
    ) {
        var error: SluiceError?
        if case .failure(let failure) = result { error = failure }
        // The stream is over: the call lets go of the transfer that carried it (kept when the body ended
        // before its head was handed over, it held the transfer, its sink and the whole body).
        streaming?.withLock { streaming in
            streaming.streamTransfer = nil
            streaming.earlyEnd = nil
        }
        // A cancel wins over an end that raced it, as the task's completion says: the reader sees it too.
        if error?.code != .cancelled, task.isCancelled {
            error = SluiceError(.cancelled, "the task was cancelled", request: task.currentRequest)
        }
        target.streamBuffer?.finish(error)
        var transactions = answer.transactions
        if let transfer { transactions += transfer.metrics.transactions }
        let start = startDate
        let metrics = TaskMetrics(transactions: transactions, startDate: start, duration: Date().timeIntervalSince(start))
        let outcome: Result<SessionManager.Completed, SluiceError> =
            if let error { .failure(error) } else {
                .success(.init(request: answer.request, response: answer.response, metrics: metrics))
            }
        _ = session.complete(task, outcome)
    }
}

extension HTTPLayerResponse {
    /// The answer's transactions; for a layer's own answer that names none, one made up for it, marked
    /// with its source, so every task's metrics say where its response came from.
    var recordedTransactions: [TaskMetrics.Transaction] {
        guard transactions.isEmpty, !source.usedNetwork else { return transactions }
        return [TaskMetrics.Transaction(
            url: request.url, statusCode: response.statusCode, httpVersion: response.httpVersion.description, source: source)]
    }
}

/// A call's body as its caller gets it.
enum DeliveredBody {
    case data(Data)
    case file(URL)
    case stream(ByteStream)
}
