import Foundation
import SluiceCore

/// The thread hand-off of Sluice's engine without any HTTP: the floor that every request from a task
/// on Swift's default executor pays, whatever the transfer.
///
/// A request is handed to a dedicated thread through a locked queue and a wake-up pipe while that thread
/// sleeps in `poll(2)` (as `CurlEngine` sleeps in `curl_multi_poll`, which wakes through a pipe the same
/// way); the thread resumes the waiting task at once (itself for one or two per turn, through one
/// global-queue job for more, as `CurlEngine.deliverEnded` does). The benchmark's `handoff` client
/// measures it at the small-GET scenarios' concurrency, so the cost of the two hand-offs is known in the
/// same run as the C program's rate.
final class HandOffEngine: @unchecked Sendable {
    typealias Waiter = UnsafeContinuation<Int, Never>

    private let state = Locked<(queue: [Waiter], sleeping: Bool, stopped: Bool)>(([], false, false))
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe failed")
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        let thread = Thread { [self] in run() }
        thread.name = "handoff-engine"
        thread.start()
    }

    /// Hands one request to the engine thread and waits for its answer.
    func roundTrip() async -> Int {
        await withUnsafeContinuation { waiter in
            let wake = state.withLock { state -> Bool in
                state.queue.append(waiter)
                defer { state.sleeping = false }
                return state.sleeping
            }
            if wake {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
        }
    }

    /// Stops the engine thread after its current turn.
    func stop() {
        // Written under the lock: the engine thread sees `stopped`, and closes the pipe, only after this.
        state.withLock { state in
            state.stopped = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private func run() {
        var batch: [Waiter] = []
        while true {
            let stopped = state.withLock { state -> Bool in
                swap(&state.queue, &batch)
                return state.stopped
            }
            if batch.count <= 2 {
                for waiter in batch { waiter.resume(returning: 1) }
            } else {
                let all = batch
                DispatchQueue.global().async { for waiter in all { waiter.resume(returning: 1) } }
            }
            batch.removeAll(keepingCapacity: true)
            if stopped { break }
            let idle = state.withLock { state -> Bool in
                guard state.queue.isEmpty else { return false }
                state.sleeping = true
                return true
            }
            if idle {
                var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 1000)
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wakeRead, &drain, drain.count)
                state.withLock { $0.sleeping = false }
            }
        }
        close(wakeRead)
        close(wakeWrite)
    }
}
