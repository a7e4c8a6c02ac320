import Dispatch
import Foundation
import SluiceCore

/// Reads a caller's request-body stream ahead of libcurl, off the engine thread, into a bounded window.
///
/// A ``BodyStream`` is the caller's code: its `read` may block (a pipe, a slow producer), sleep, or
/// take its time compressing. Called on the engine thread, one such read stalled every transfer of the
/// session. Here the stream is read on a queue of its own, one read at a time, at most ``window`` bytes
/// ahead of what curl took; the engine takes bytes from the window in curl's read callback and pauses
/// the transfer while it is empty. When bytes (or the end, or an error) arrive for a transfer that
/// waits, ``wake`` asks the engine to continue it. A stream that asks to wait
/// (``BodyStream/delayBeforeNextRead()``, a throttle) is read again after its delay, without holding a
/// thread.
///
/// Rewinding (a redirect, an authentication round, libcurl retrying on a new connection) discards the
/// window and rewinds the stream on the reader's queue before its next read; a read in flight when that
/// happens is discarded when it returns. After ``close()`` nothing is delivered any more, and a read
/// blocked in the caller's stream ends on its own time without holding the transfer.
///
/// A request sent again (a redirect, a retry) gets a new reader of the same caller stream. Every
/// reader of one stream reads on one serial queue, which the transfer keeps: the new reader's rewind
/// waits for a read the closed one still has in flight, instead of racing it for the stream's bytes.
final class BodyReadAhead: @unchecked Sendable {
    /// What the engine gets from ``take(into:)``.
    enum Take {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: pause the transfer until ``wake``. `paced` when the stream itself asked to wait
        /// (the idle clock stops then), else the stream is just slow to produce.
        case wait(paced: Bool)
        /// The stream ended.
        case end
        /// The stream failed.
        case failed(SluiceError)
    }

    /// Bytes read from the stream, waiting for the engine: `count` bytes at the start of `bytes`.
    private struct Chunk {
        var bytes: [UInt8]
        var count: Int
    }

    private struct State {
        var chunks: [Chunk] = []
        /// Buffers the engine has emptied, for the next reads: the stream is read straight into one, and
        /// reads and takes hand the same few back and forth, instead of copying each read into a new
        /// `Data` made on the reader's thread and freed on the engine's.
        var spare: [[UInt8]] = []
        /// Bytes of the first chunk already taken.
        var offset = 0
        var buffered = 0
        /// A read is scheduled or running.
        var reading = false
        /// The stream asked to wait before its next read.
        var paced = false
        var ended = false
        var error: SluiceError?
        /// The engine found the window empty and paused the transfer.
        var engineWaits = false
        var closed = false
        /// Counts rewinds: a read that began before the latest one is discarded.
        var generation = 0
        var rewindPending = false
    }

    /// The most bytes read ahead of curl. Default 128 KiB.
    let window: Int
    private let stream: any BodyStream
    private let chunkSize: Int
    private let state: LockedStorage<State>
    /// Serial; shared by every reader of the same caller stream.
    private let queue: DispatchQueue
    /// Asks the engine to continue the paused transfer; from the reader's queue.
    private let wake: @Sendable () -> Void
    /// The stream to start over before the first read, if any (the caller's stream under an encoding
    /// one); later rewinds rewind ``stream``.
    private var firstRewind: (any BodyStream)?

    /// A reader for `stream`, which it starts at once, rewinding `rewinding` first when given.
    ///
    /// - Parameters:
    ///   - window: The most bytes read ahead. Default 128 KiB.
    ///   - chunkSize: Bytes per read. Default 64 KiB (libcurl's upload buffer).
    ///   - queue: The serial queue the stream is read on; pass the same one to every reader of the same
    ///     caller stream. Default a new queue.
    ///   - wake: Asks the engine to continue the transfer; called on the reader's queue.
    init(
        _ stream: any BodyStream, rewinding: (any BodyStream)?, window: Int = 128 * 1024, chunkSize: Int = 64 * 1024,
        queue: DispatchQueue = BodyReadAhead.makeQueue(), wake: @escaping @Sendable () -> Void
    ) {
        self.stream = stream
        self.queue = queue
        self.window = window
        self.chunkSize = chunkSize
        self.wake = wake
        self.firstRewind = rewinding
        self.state = LockedStorage.make(State(reading: true, rewindPending: rewinding != nil))
        schedule(after: nil)
    }

    /// A serial queue for reading one caller stream.
    static func makeQueue() -> DispatchQueue {
        DispatchQueue(label: "sluice.body-read-ahead", qos: .userInitiated)
    }

    /// Copies what the window holds into `buffer` (engine thread, from curl's read callback).
    func take(into buffer: UnsafeMutableRawBufferPointer) -> Take {
        let (take, readMore) = state.withLock { state -> (Take, Bool) in
            if let error = state.error { return (.failed(error), false) }
            if state.buffered == 0 {
                if state.ended { return (.end, false) }
                state.engineWaits = true
                let start = !state.reading
                if start { state.reading = true }
                return (.wait(paced: state.paced), start)
            }
            var copied = 0
            while copied < buffer.count, let chunk = state.chunks.first {
                let count = min(buffer.count - copied, chunk.count - state.offset)
                chunk.bytes.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<copied + count])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.offset..<state.offset + count]))
                }
                copied += count
                state.offset += count
                if state.offset == chunk.count {
                    state.spare.append(state.chunks.removeFirst().bytes)
                    state.offset = 0
                }
            }
            state.buffered -= copied
            let start = !state.reading && !state.ended && state.buffered < window
            if start { state.reading = true }
            return (.bytes(copied), start)
        }
        if readMore { schedule(after: nil) }
        return take
    }

    /// Starts the stream over (engine thread): the window is discarded and the stream rewound before
    /// its next read.
    func rewind() {
        let readMore = state.withLock { state -> Bool in
            state.spare += state.chunks.map(\.bytes)
            state.chunks.removeAll()
            state.offset = 0
            state.buffered = 0
            state.ended = false
            state.error = nil
            state.generation += 1
            state.rewindPending = true
            guard !state.reading else { return false }
            state.reading = true
            return true
        }
        if readMore { schedule(after: nil) }
    }

    /// Stops delivering: what is buffered is dropped, and a read in flight is discarded when it returns.
    func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            state.chunks.removeAll()
            state.buffered = 0
            return !state.closed
        }
        // A stream waiting for its producer (an async sequence) stops it and wakes the read in flight. Only
        // once: a later close (the transfer's deinit) may come after a new reader of the same stream, for
        // the next hop, rewound it, and would stop that reader's producer.
        if wasOpen { stream.stopReading() }
    }

    private func schedule(after delay: Duration?) {
        guard let delay else { return queue.async { self.readOnce() } }
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { self.readOnce() }
    }

    /// One read of the stream, on the reader's queue (the `reading` flag was set for it).
    private func readOnce() {
        let start = state.withLock { state -> (generation: Int, rewind: Bool)? in
            guard !state.closed else {
                state.reading = false
                return nil
            }
            state.paced = false
            defer { state.rewindPending = false }
            return (state.generation, state.rewindPending)
        }
        guard let start else { return }
        // A buffer the engine emptied, or a new one the first times.
        var buffer = state.withLock { $0.spare.popLast() } ?? [UInt8](repeating: 0, count: chunkSize)
        let outcome: Result<Int, SluiceError>
        if start.rewind, case .failure(let error) = rewindStream() {
            outcome = .failure(error)
        } else if let delay = stream.delayBeforeNextRead(), delay > .zero {
            let stillCurrent = state.withLock { state -> Bool in
                guard !state.closed, state.generation == start.generation else { return false }
                state.paced = true
                return true
            }
            state.withLock { $0.spare.append(buffer) }
            if stillCurrent { return schedule(after: delay) }
            return finishDiscarded()
        } else {
            outcome = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SluiceError) -> Int in try stream.read(into: bytes) }
            }
        }
        let (wakeEngine, readMore) = state.withLock { state -> (Bool, Bool) in
            state.reading = false
            guard !state.closed else { return (false, false) }
            guard state.generation == start.generation else {
                // Rewound meanwhile: this read is stale; read again from the start.
                state.spare.append(buffer)
                state.reading = true
                return (false, true)
            }
            switch outcome {
            case .success(0):
                state.ended = true
                state.spare.append(buffer)
            case .success(let count):
                state.chunks.append(Chunk(bytes: buffer, count: count))
                state.buffered += count
            case .failure(let error):
                state.error = error
                state.spare.append(buffer)
            }
            let wakeEngine = state.engineWaits
            state.engineWaits = false
            let readMore = !state.ended && state.error == nil && state.buffered < window
            if readMore { state.reading = true }
            return (wakeEngine, readMore)
        }
        if wakeEngine { wake() }
        if readMore { schedule(after: nil) }
    }

    /// Rewinds the stream before a read (reader's queue): the first time the stream the reader was made
    /// to rewind, later the stream it reads.
    private func rewindStream() -> Result<Void, SluiceError> {
        let target = firstRewind ?? stream
        firstRewind = nil
        do {
            try target.rewind()
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// A paced read that found the reader rewound or closed: start over, or stop.
    private func finishDiscarded() {
        let readMore = state.withLock { state -> Bool in
            guard !state.closed else {
                state.reading = false
                return false
            }
            return true  // `reading` stays set for the new read
        }
        if readMore { schedule(after: nil) }
    }
}
