import CCurlBench
import Foundation

/// The least a Swift client with Sluice's engine design can do per request: a dedicated thread on one
/// curl multi handle (woken with `curl_multi_wakeup`, sleeping in `curl_multi_poll`), pooled easy
/// handles with the curl options Sluice sets for a GET, and a task resumed with the body's length — and
/// nothing else Sluice does (no task objects, metrics, header handling, monitors, redirects,
/// cancellation or errors beyond a failure).
///
/// The benchmark's `minimal` client runs it, to tell how much of Sluice's cost is the design (thread
/// hand-offs and Swift concurrency around libcurl) and how much is Sluice's own work per request.
final class MinimalCurlEngine: @unchecked Sendable {
    /// One request: its URL and the task waiting for its body's length (or -1 on failure).
    final class Request: @unchecked Sendable {
        let url: [CChar]
        let waiter: UnsafeContinuation<Int, Never>
        var received = 0

        init(url: [CChar], waiter: UnsafeContinuation<Int, Never>) {
            self.url = url
            self.waiter = waiter
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let caFile: String?
    private let state = Locked<(queue: [Request], sleeping: Bool, stopped: Bool)>(([], false, false))
    /// Signalled when the engine thread has freed its handles.
    private let finished = DispatchSemaphore(value: 0)

    init(concurrency: Int, caFile: String?) {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        multi = curl_multi_init()
        self.caFile = caFile
        bench_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency)
        bench_multi_setopt_long(multi, CURLMOPT_PIPELINING, 2)  // CURLPIPE_MULTIPLEX
        bench_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(concurrency * 4, 32))
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Sends a GET for `url` (a NUL-terminated C string) and returns the body's length.
    func get(_ url: [CChar]) async -> Int {
        await withUnsafeContinuation { waiter in
            let request = Request(url: url, waiter: waiter)
            let wake = state.withLock { state -> Bool in
                state.queue.append(request)
                defer { state.sleeping = false }
                return state.sleeping
            }
            if wake { curl_multi_wakeup(multi) }
        }
    }

    /// Stops the engine thread once its transfers are done.
    /// Stops the engine and waits until its thread has freed its handles: a process that exits while
    /// the thread still closes TLS connections can crash in OpenSSL's exit-time cleanup (Sluice's engine
    /// waits likewise at exit).
    func stop() {
        state.withLock { $0.stopped = true }
        curl_multi_wakeup(multi)
        finished.wait()
    }

    private func run() {
        Thread.current.name = "minimal-engine"
        let share = curl_share_init()!
        bench_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        bench_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        // CURL_ERROR_SIZE bytes, one buffer for every transfer (never read).
        let errors = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        defer { errors.deallocate() }
        var batch: [Request] = []
        var pool: [UnsafeMutableRawPointer] = []
        var active = 0
        var ended: [Request] = []
        var running: Int32 = 0
        while true {
            let stopped = state.withLock { state -> Bool in
                swap(&state.queue, &batch)
                return state.stopped
            }
            for request in batch {
                let easy = pool.popLast() ?? curl_easy_init()!
                request.url.withUnsafeBufferPointer { bench_easy_setopt_string(easy, CURLOPT_URL, $0.baseAddress) }
                bench_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
                bench_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
                bench_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
                if let caFile { bench_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
                // The options Sluice sets for a GET with its default configuration.
                bench_easy_setopt_pointer(easy, CURLOPT_SHARE, UnsafeMutableRawPointer(share))
                bench_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 30_000)
                bench_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errors)
                bench_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { _, size, count, _ in size * count }
                bench_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { _, size, count, context in
                    Unmanaged<Request>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.received += size * count }
                    return size * count
                }
                let context = Unmanaged.passRetained(request).toOpaque()
                bench_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
                bench_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
                curl_multi_add_handle(multi, easy)
                active += 1
            }
            batch.removeAll(keepingCapacity: true)
            if stopped && active == 0 { break }
            curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let request = Unmanaged<Request>.fromOpaque(bench_easy_private(easy)).takeRetainedValue()
                if message.pointee.data.result != CURLE_OK { request.received = -1 }
                curl_multi_remove_handle(multi, easy)
                curl_easy_reset(easy)
                pool.append(easy)
                active -= 1
                ended.append(request)
            }
            // As Sluice's engine: one or two waiting tasks resumed here, more through one worker job.
            if ended.count <= 2 {
                for request in ended { request.waiter.resume(returning: request.received) }
            } else {
                let all = ended
                DispatchQueue.global().async { for request in all { request.waiter.resume(returning: request.received) } }
            }
            ended.removeAll(keepingCapacity: true)
            let idle = state.withLock { state -> Bool in
                guard state.queue.isEmpty else { return false }
                state.sleeping = true
                return true
            }
            if idle {
                curl_multi_poll(multi, nil, 0, 1000, nil)
                state.withLock { $0.sleeping = false }
            }
        }
        for easy in pool { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
        curl_share_cleanup(share)
        finished.signal()
    }
}
