import CCurl
import Foundation
import SluiceCore
import Synchronization

/// One curl multi handle driven by one dedicated thread with `curl_multi_poll`.
///
/// Other threads hand it work through a locked queue and wake it through an eventfd it polls besides
/// curl's sockets (`curl_multi_wakeup` where none can be made); every
/// curl call happens on the engine thread. Easy handles are pooled and reset between uses; share
/// handles keep DNS answers, TLS sessions and (for transfers that handle cookies) the cookie store.
final class CurlEngine: TaskExecutor, @unchecked Sendable {
    enum Command {
        case start(Transfer)
        case cancel(Transfer, SluiceError)
        case suspend(Transfer)
        case resume(Transfer)
        case continueStream(Transfer)
        /// A job of a Swift task that prefers this engine as its executor.
        case run(UnownedJob)
        case stop(cancelling: Bool)
    }

    // Immutable after init; the handles are used on the engine thread only (wakeup is thread-safe).
    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer
    /// DNS and TLS sessions, plus the cookie store, for transfers that handle cookies.
    private let cookieShare: UnsafeMutableRawPointer
    /// The eventfd that wakes the engine's poll, or -1 (then `curl_multi_wakeup` does). Closed when the
    /// engine is freed, not when its thread ends: a submitter may still be about to write to it.
    private let wakeFD: Int32
    /// Work for the engine thread; `accepting` is false once a stop is queued, `finished` once the thread
    /// has left its loop.
    private let commands = Locked<(queue: [Command], accepting: Bool, finished: Bool, sleeping: Bool)>(([], true, false, false))
    /// The engine thread's kernel id once it runs (for diagnostics and tests), else 0.
    let threadID = Locked<Int32>(0)
    /// The engine thread, once it runs.
    private let thread = Locked<pthread_t?>(nil)

    // Engine thread only.
    /// The running attempts by easy handle, with what the engine knows of each handle.
    private var active: [UnsafeMutableRawPointer: Attached] = [:]

    /// A transfer on one of the engine's easy handles, and the state of that handle's cookie engine.
    private struct Attached {
        let transfer: Transfer
        var cookieEngine: CookieEngine
        /// This attempt set `CURLOPT_COOKIEFILE` (to turn the engine on), whatever came of it.
        let setCookieFile: Bool
    }

    /// A handle's cookie engine: curl turns it on as a transfer that set `CURLOPT_COOKIEFILE` starts, and
    /// keeps it on through `curl_easy_reset`, so handles with it on are pooled apart.
    private enum CookieEngine {
        case off
        /// This attempt turns it on (on once the attempt has started).
        case starting
        case on
    }

    /// The handle `transfer` runs on, when it runs on one of this engine's.
    private func handle(of transfer: Transfer) -> UnsafeMutableRawPointer? {
        guard let easy = transfer.easy, active[easy]?.transfer === transfer else { return nil }
        return easy
    }
    private var pool: [UnsafeMutableRawPointer] = []
    /// Pooled handles whose cookie engine is on: each once loaded the (empty) cookie file that turns it
    /// on, which `curl_easy_reset` leaves on. A transfer that handles cookies takes one of these and
    /// only attaches the cookie share; setting `CURLOPT_COOKIEFILE` again for every transfer cost a
    /// cookie-engine start per request and, in libcurl 7.88, leaked the file-name list at each reset.
    /// Any other transfer may use one too: without the cookie share, the handle has no cookie store.
    private var cookiePool: [UnsafeMutableRawPointer] = []
    /// When ``failIdleTransfers()`` looks next; `nil` when no transfer had an idle timeout at the last look.
    /// Kept while no transfer runs (it then does not wake the engine).
    private var nextIdleCheck: MonotonicInstant?
    private var stopping: Bool?  // nil: running; true: cancel everything; false: drain
    /// Transfers that ended in this turn of the loop, handed to their completions together.
    private var ended: [(Transfer, Transfer.Ending)] = []
    /// The most transfers attached at once since the heap was last given back (see ``releaseHeapAfterBurst()``).
    private var highWater = 0

    init(configuration: SessionConfiguration) throws(SluiceError) {
        guard CurlGlobal.ensureInitialized(), let multi = curl_multi_init(), let share = curl_share_init(),
            let cookieShare = curl_share_init()
        else {
            throw SluiceError(.transportFailed, "libcurl could not be initialized")
        }
        self.multi = multi
        self.share = share
        self.cookieShare = cookieShare
        wakeFD = sluice_wake_fd_open()
        for handle in [share, cookieShare] {
            sluice_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
            sluice_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        }
        sluice_share_setopt_long(cookieShare, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        sluice_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        sluice_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
        sluice_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maximumConnections)
        sluice_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(configuration.maximumConnectionsPerHost * 4, 32))
        let thread = Thread { [self] in run() }
        thread.name = "sluice.curl-engine"
        thread.stackSize = 1 << 20
        CurlGlobal.engineStarted(self)
        thread.start()
    }

    /// Queues a command and wakes the engine. Returns `false` once the engine has stopped taking work.
    @discardableResult
    func submit(_ command: Command) -> Bool {
        let (accepted, wake) = commands.withLock { state -> (Bool, Bool) in
            // Once the thread has ended, nothing is taken: a command left in the queue would hold its
            // transfer, and through its task the session and this engine, for good.
            guard !state.finished, state.accepting else { return (false, false) }
            if case .stop = command { state.accepting = false }
            state.queue.append(command)
            // One wake-up per sleep is enough: later commands are picked up with the first.
            defer { state.sleeping = false }
            return (true, state.sleeping)
        }
        if wake {
            if wakeFD >= 0 { sluice_wake_fd_signal(wakeFD) } else { curl_multi_wakeup(multi) }
        }
        return accepted
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
    }

    // MARK: The engine thread

    private func run() {
        sluice_name_current_thread("sluice.curl-eng")
        threadID.withLock { $0 = sluice_current_thread_id() }
        thread.withLock { $0 = pthread_self() }
        var running: Int32 = 0
        var batch: [Command] = []
        while true {
            // A job of a task on the engine's executor usually submits that task's next request: taking
            // the queue again after jobs ran starts it in this turn instead of after one more
            // `curl_multi_perform` (a few rounds at most, so jobs cannot keep curl waiting).
            for _ in 0..<4 {
                // Trade the empty batch for the queue: neither array is reallocated from turn to turn.
                commands.withLock { state in swap(&state.queue, &batch) }
                var ranJobs = false
                // Each command is lent to `handle` in place: iterating the array would copy it first.
                batch.withUnsafeBufferPointer { commands in
                    for index in commands.indices {
                        if case .run = commands[index] { ranJobs = true }
                        handle(commands[index])
                    }
                }
                // Emptied at once: a command must not keep its transfer alive past the transfer's
                // completion (which runs elsewhere, and should free it there).
                batch.removeAll(keepingCapacity: true)
                if !ranJobs { break }
            }
            if let cancelling = stopping, active.isEmpty || cancelling {
                if cancelling { cancelAll() }
                if active.isEmpty {
                    deliverEnded()
                    break
                }
            }
            curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                finish(easy, code: message.pointee.data.result)
            }
            failIdleTransfers()
            deliverEnded()
            // Sleep only when no command arrived meanwhile; submitters wake the poll once it is set.
            let idle = commands.withLock { state -> Bool in
                guard state.queue.isEmpty else { return false }
                state.sleeping = true
                return true
            }
            if idle {
                if wakeFD >= 0 {
                    sluice_multi_poll_waking(multi, wakeFD, pollTimeout())
                } else {
                    curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
                }
                commands.withLock { $0.sleeping = false }
            }
        }
        // Jobs that came after the last turn run elsewhere; the rest is dropped here, outside the lock.
        let left = commands.withLock { state in
            state.finished = true
            defer { state.queue.removeAll() }
            return state.queue
        }
        for case .run(let job) in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        for easy in pool + cookiePool { curl_easy_cleanup(easy) }
        pool.removeAll()
        cookiePool.removeAll()
        curl_multi_cleanup(multi)
        curl_share_cleanup(share)
        curl_share_cleanup(cookieShare)
        CurlGlobal.engineFinished(self)
    }

    private func handle(_ command: Command) {
        switch command {
        case .start(let transfer):
            if stopping != nil {
                transfer.end(.failure(SluiceError(.sessionInvalidated, "the session was invalidated", request: transfer.request)))
                return
            }
            // Cancelled before the engine got to it.
            if transfer.cancelRequested.load(ordering: .acquiring) {
                return transfer.end(.failure(transfer.attach(SluiceError(.cancelled, "the task was cancelled"))))
            }
            attach(transfer)
        case .cancel(let transfer, let error):
            guard let easy = handle(of: transfer) else { return }
            curl_multi_remove_handle(multi, easy)
            complete(transfer, easy: easy, result: .failure(transfer.attach(error)))
        case .suspend(let transfer):
            guard let easy = handle(of: transfer), transfer.suspend() else { return }
            curl_easy_pause(easy, SLUICE_CURLPAUSE_ALL)
        case .resume(let transfer):
            guard let easy = handle(of: transfer), transfer.resume() else { return }
            unpause(easy)
        case .continueStream(let transfer):
            guard let easy = handle(of: transfer), transfer.streamCanContinue() else { return }
            unpause(easy)
        case .run(let job):
            job.runSynchronously(on: asUnownedTaskExecutor())
        case .stop(let cancelling):
            stopping = cancelling
        }
    }

    // MARK: Task executor

    /// Whether the caller runs on the engine thread (a task that prefers the engine as its executor).
    var isCurrentThread: Bool {
        guard let engineThread = thread.withLock({ $0 }) else { return false }
        return pthread_equal(engineThread, pthread_self()) != 0
    }

    /// Runs `job` on the engine thread between turns of the curl loop; once the engine has stopped,
    /// on the global concurrent executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !submit(.run(job)) { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Ends the transfers that moved no byte for their idle timeout; looks again in a quarter of the
    /// shortest idle timeout (between 50 ms and a second).
    private func failIdleTransfers() {
        guard !active.isEmpty else { return }
        let now = MonotonicInstant.now
        if let next = nextIdleCheck, now < next { return }
        var shortest = TimeInterval.infinity
        var idle: [(UnsafeMutableRawPointer, Transfer)] = []
        for (easy, attached) in active where attached.transfer.idleTimeout > 0 {
            let transfer = attached.transfer
            shortest = min(shortest, transfer.idleTimeout)
            if transfer.isIdle(at: now) { idle.append((easy, transfer)) }
        }
        nextIdleCheck = shortest.isFinite ? now + Self.idleCheckInterval(forTimeout: shortest) : nil
        for (easy, transfer) in idle {
            curl_multi_remove_handle(multi, easy)
            complete(transfer, easy: easy, result: .failure(transfer.idleError()))
        }
    }

    /// How often transfers with an idle timeout of `timeout` seconds are looked at: a quarter of it,
    /// between 50 ms and a second.
    private static func idleCheckInterval(forTimeout timeout: TimeInterval) -> Duration {
        .milliseconds(Int(max(50, min(1000, timeout * 250))))
    }

    /// The longest ``idleCheckInterval(forTimeout:)``.
    private static let longestIdleCheckInterval = Duration.seconds(1)

    /// How long the engine may sleep: a second, or less when an idle check of running transfers is due sooner.
    private func pollTimeout() -> Int32 {
        guard !active.isEmpty, let next = nextIdleCheck else { return 1000 }
        return min(1000, Int32(max(0, (next - MonotonicInstant.now) / .milliseconds(1)).rounded(.up)))
    }

    private func attach(_ transfer: Transfer) {
        let handlesCookies = transfer.handlesCookies
        var cookieEngineOn = false
        var easy: UnsafeMutableRawPointer?
        if handlesCookies, let pooled = cookiePool.popLast() {
            (easy, cookieEngineOn) = (pooled, true)
        } else if let pooled = pool.popLast() {
            easy = pooled
        } else if let pooled = cookiePool.popLast() {
            (easy, cookieEngineOn) = (pooled, true)
        } else {
            easy = curl_easy_init()
        }
        guard let easy else {
            transfer.end(.failure(SluiceError(.transportFailed, "curl_easy_init failed", request: transfer.request)))
            return
        }
        let starting = handlesCookies && !cookieEngineOn
        do {
            try transfer.configure(
                easy, share: handlesCookies ? cookieShare : share, engine: self, startingCookieEngine: starting)
        } catch {
            recycle(easy, cookieEngineOn: cookieEngineOn)
            transfer.end(.failure(transfer.attach(error)))
            return
        }
        active[easy] = Attached(
            transfer: transfer, cookieEngine: cookieEngineOn ? .on : starting ? .starting : .off, setCookieFile: starting)
        highWater = max(highWater, active.count)
        // The idle check's schedule outlives the transfers it was made for (at one request at a time it
        // would otherwise be made again for every request); one due later than this transfer needs is
        // dropped, so the next turn looks and plans again. A schedule is never more than a second ahead,
        // so only a transfer looked at more often than that (an idle timeout under 4 s) can need it.
        if transfer.idleTimeout > 0, let next = nextIdleCheck {
            let interval = Self.idleCheckInterval(forTimeout: transfer.idleTimeout)
            if interval < Self.longestIdleCheckInterval, MonotonicInstant.now + interval < next { nextIdleCheck = nil }
        }
        let code = curl_multi_add_handle(multi, easy)
        if code != CURLM_OK {
            release(easy, of: transfer)
            transfer.end(.failure(transfer.attach(SluiceError(
                .transportFailed, "curl_multi_add_handle failed",
                library: LibraryDiagnostic(library: "libcurl", code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))))))
        }
    }

    /// Lets a paused transfer go on. libcurl hands the bytes it held back to the write callback inside
    /// `curl_easy_pause`; when the callback fails them (a decoding limit, a corrupt body), the pause call
    /// returns that error and the transfer is over: it ends here, with the callback's error, rather than
    /// being fed the bytes that follow (which a decoder then read out of place and called corrupt).
    private func unpause(_ easy: UnsafeMutableRawPointer) {
        let code = curl_easy_pause(easy, SLUICE_CURLPAUSE_CONT)
        if code != CURLE_OK { finish(easy, code: code) }
    }

    private func finish(_ easy: UnsafeMutableRawPointer, code: CURLcode) {
        guard let transfer = active[easy]?.transfer else { return }
        curl_multi_remove_handle(multi, easy)
        // curl loads the cookie file, turning the engine on, as it starts a transfer; one it ended
        // has started. (A transfer cancelled before may not have: its handle keeps its old state.)
        if active[easy]?.cookieEngine == .starting { active[easy]?.cookieEngine = .on }
        carryOut(transfer.finish(code: code), for: transfer, easy: easy)
    }

    /// Does what a transfer's step asks: another attempt, or the end. `easy` is the handle of the
    /// attempt that just ended.
    private func carryOut(_ step: Transfer.Step, for transfer: Transfer, easy: UnsafeMutableRawPointer) {
        switch step {
        case .sendAgain:
            release(easy, of: transfer)
            attach(transfer)
        case .complete(let result):
            release(easy, of: transfer)
            ended.append((transfer, result))
        }
    }

    private func complete(_ transfer: Transfer, easy: UnsafeMutableRawPointer, result: Transfer.Ending) {
        // A head that arrived before the cancel or the idle timeout is the task's response.
        transfer.reportPending()
        release(easy, of: transfer)
        ended.append((transfer, result))
    }

    /// Takes `easy` off `transfer` and pools it, pooled by its cookie engine's state.
    private func release(_ easy: UnsafeMutableRawPointer?, of transfer: Transfer) {
        guard let easy else { return }
        let attached = active.removeValue(forKey: easy)
        transfer.detachHandle()
        recycle(easy, cookieEngineOn: attached?.cookieEngine == .on, clearingCookieFile: attached?.setCookieFile == true)
        if active.isEmpty { releaseHeapAfterBurst() }
    }

    /// How many transfers at once count as a burst whose memory is given back when it is over.
    static let burstTransfers = 256

    /// After a burst (``burstTransfers`` or more at once) the engine goes idle: gives the C heap's free
    /// memory back to the system a second later, off the engine thread, once the completions have freed
    /// the tasks' buffers. glibc keeps freed memory in its arenas; 5,000 transfers cancelled at once left
    /// 370 MiB resident with 0.5 MiB in use until `malloc_trim` (docs/reliability.md).
    private func releaseHeapAfterBurst() {
        guard highWater >= Self.burstTransfers else { return }
        highWater = 0
        Self.completionQueue.asyncAfter(deadline: .now() + 1) { sluice_release_free_heap() }
    }

    /// How many transfers may end in one turn for their callers to be resumed by the engine itself.
    private static let resumedDirectly = 2

    /// Where batches of completions run (one object for the life of the process).
    private static let completionQueue = DispatchQueue.global()

    /// Hands the transfers that ended in this turn to their completions.
    ///
    /// A caller of the async API completes its task on its own thread, once resumed with the result;
    /// other completions run on a global queue. When one or two transfers end, their callers are
    /// resumed here at once: the answer reaches the waiting code soonest. When more end together, one
    /// job on a global queue resumes or completes them all, so the engine goes back to curl at once
    /// and leaves that work (waking tasks, making responses, calling handlers, freeing the task's
    /// objects) to a worker.
    private func deliverEnded() {
        guard !ended.isEmpty else { return }
        var batch: [(Transfer, Transfer.Ending)] = []
        if ended.count <= Self.resumedDirectly {
            for (transfer, result) in ended {
                if transfer.isAwaited { transfer.end(result) } else { batch.append((transfer, result)) }
            }
        } else {
            swap(&batch, &ended)
            // Grown once for a turn like this one, not doubling from empty as transfers end.
            ended.reserveCapacity(batch.count)
        }
        ended.removeAll(keepingCapacity: true)
        guard !batch.isEmpty else { return }
        // The job takes the batch out of the hand-off, so the job's thread drops the last references to
        // the transfers even when the engine releases the job's closure after the job has run.
        let handoff = EndedBatch(consume batch)
        Self.completionQueue.async {
            for (transfer, result) in handoff.take() { transfer.end(result) }
        }
    }

    /// Transfers and their results on their way from the engine to the completion job, which takes them.
    private final class EndedBatch: @unchecked Sendable {
        private var items: [(Transfer, Transfer.Ending)]

        init(_ items: consuming [(Transfer, Transfer.Ending)]) { self.items = items }

        /// The items, leaving none behind (called once, by the job).
        func take() -> [(Transfer, Transfer.Ending)] {
            defer { items = [] }
            return items
        }
    }

    /// Resets a handle and pools it (up to 256 of each kind), or frees it.
    ///
    /// `clearingCookieFile`: the last attempt set `CURLOPT_COOKIEFILE`. libcurl 7.88 keeps that file name
    /// in a list `curl_easy_reset` forgets without freeing (one 17-byte leak per handle, 2,533 in one run of
    /// the suite); setting the option to `NULL` first frees it. With a share that holds the cookie store,
    /// that neither clears the store nor turns the handle's cookie engine off.
    private func recycle(_ easy: UnsafeMutableRawPointer, cookieEngineOn: Bool, clearingCookieFile: Bool = false) {
        if clearingCookieFile { sluice_easy_setopt_string(easy, CURLOPT_COOKIEFILE, nil) }
        curl_easy_reset(easy)
        if cookieEngineOn {
            if cookiePool.count < 256 { return cookiePool.append(easy) }
        } else if pool.count < 256 {
            return pool.append(easy)
        }
        curl_easy_cleanup(easy)
    }

    private func cancelAll() {
        for (easy, attached) in active {
            let transfer = attached.transfer
            curl_multi_remove_handle(multi, easy)
            complete(transfer, easy: easy, result: .failure(transfer.attach(
                SluiceError(.cancelled, "the session was invalidated while the task ran"))))
        }
    }
}
