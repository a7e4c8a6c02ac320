import Foundation

/// A request body produced by an `AsyncSequence` of byte chunks (async-http-client's `Body.stream`),
/// with back-pressure: the sequence is iterated by a task of its own that stays at most ``window`` bytes
/// ahead of what the transport has read, so a producer faster than the connection waits instead of
/// filling memory, and the transfer waits for a producer that is behind.
///
/// ```swift
/// let body = HTTPBody.asyncSequence(length: 3 << 20) {
///     AsyncStream { continuation in … }  // or any AsyncSequence of Data
/// }
/// ```
///
/// - The length, when given, is sent as `Content-Length` (a sequence that produces another count fails
///   the request with ``SluiceError/Code/bodyLengthMismatch``); without it the body is sent chunked.
/// - A sequence that throws fails the request with ``SluiceError/Code/bodyStreamFailed``, the
///   sequence's error as ``SluiceError/underlying``.
/// - When the transfer ends early (cancelled, failed, the Swift task awaiting it cancelled), the
///   producing task is cancelled: an `AsyncStream` or a loop that checks `Task.isCancelled` stops.
/// - Made with a closure that makes the sequence, it is rewindable: a redirect or a retry makes a new
///   sequence and sends it again. Made with a sequence, it is sent once.
public final class AsyncSequenceBodyStream: BodyStream, @unchecked Sendable {
    // Every mutable field is guarded by `condition`, which also wakes a waiting read.
    private struct State {
        var chunks = ChunkQueue()
        var finished = false
        var failure: SluiceError?
        var stopped = false
        /// Bumped by each rewind: a producer of an earlier generation adds nothing.
        var generation = 0
        var producer: Task<Void, Never>?
        /// The producer, waiting for the buffer to drop below the window.
        var spaceWaiter: CheckedContinuation<Void, Never>?
    }

    private let condition = NSCondition()
    private var state = State()
    private let makeChunks: @Sendable () -> (any AsyncSequence<Data, any Error> & Sendable)?
    private let length: Int64?
    /// The most bytes buffered ahead of the transport's reads (one more chunk may be on its way).
    public let window: Int
    /// Whether a rewind makes the sequence again.
    public let isRewindable: Bool

    /// A body that makes its sequence with `makeChunks` each time it is sent (so it is rewindable).
    ///
    /// - Parameters:
    ///   - length: The total byte count, when known. Default `nil` (chunked).
    ///   - window: The most bytes produced ahead of the transport. Default 256 KiB.
    ///   - makeChunks: Makes the sequence; called when the body is first read, and again for each resend.
    public init<Chunks: AsyncSequence & Sendable>(
        length: Int64? = nil, window: Int = 256 << 10, _ makeChunks: @escaping @Sendable () -> Chunks
    ) where Chunks.Element == Data, Chunks.Failure == any Error {
        self.length = length
        self.window = max(1, window)
        self.isRewindable = true
        self.makeChunks = { makeChunks() }
    }

    /// A body of `chunks`, sent once (a redirect or retry that must send it again fails with
    /// ``SluiceError/Code/bodyNotRewindable``).
    ///
    /// - Parameters:
    ///   - chunks: The sequence.
    ///   - length: The total byte count, when known. Default `nil` (chunked).
    ///   - window: The most bytes produced ahead of the transport. Default 256 KiB.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64? = nil, window: Int = 256 << 10)
    where Chunks.Element == Data, Chunks.Failure == any Error {
        self.length = length
        self.window = max(1, window)
        self.isRewindable = false
        let once = Locked<Chunks?>(chunks)
        self.makeChunks = { once.withLock { taken in defer { taken = nil }; return taken } }
    }

    deinit { state.producer?.cancel() }

    /// The length given, or `nil`.
    public var contentLength: Int64? { length }

    /// Copies the next bytes the sequence produced, waiting for them when there are none yet.
    ///
    /// - Throws: ``SluiceError/Code/bodyStreamFailed`` when the sequence threw;
    ///   ``SluiceError/Code/cancelled`` once reading was stopped.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        condition.lock()
        if state.producer == nil, !state.finished, state.failure == nil, !state.stopped { startProducer() }
        while state.chunks.isEmpty, !state.finished, state.failure == nil, !state.stopped {
            condition.wait()
        }
        if state.stopped {
            condition.unlock()
            throw SluiceError(.cancelled, "the request body is no longer read")
        }
        let copied = state.chunks.take(into: buffer)
        var waiter: CheckedContinuation<Void, Never>?
        if state.chunks.byteCount < window {
            waiter = state.spaceWaiter
            state.spaceWaiter = nil
        }
        let failure = copied == 0 ? state.failure : nil
        condition.unlock()
        waiter?.resume()
        if let failure { throw failure }
        return copied
    }

    /// Stops the producer and starts over with a new sequence.
    ///
    /// - Throws: ``SluiceError/Code/bodyNotRewindable`` for a body made from one sequence.
    public func rewind() throws(SluiceError) {
        guard isRewindable else {
            throw SluiceError(.bodyNotRewindable, "a request body made from one async sequence cannot be sent again")
        }
        condition.lock()
        let (producer, waiter) = (state.producer, state.spaceWaiter)
        state = State(generation: state.generation + 1)
        condition.unlock()
        producer?.cancel()
        waiter?.resume()
    }

    /// Stops the producer (its task is cancelled) and wakes a read waiting for it.
    public func stopReading() {
        condition.lock()
        state.stopped = true
        let (producer, waiter) = (state.producer, state.spaceWaiter)
        state.spaceWaiter = nil
        state.chunks.removeAll()
        condition.broadcast()
        condition.unlock()
        producer?.cancel()
        waiter?.resume()
    }

    /// As ``stopReading()``.
    public func close() { stopReading() }

    /// Starts the task that iterates the sequence; `condition` is held.
    private func startProducer() {
        let generation = state.generation
        guard let chunks = makeChunks() else {
            state.failure = SluiceError(.bodyNotRewindable, "a request body made from one async sequence was read once already")
            return
        }
        state.producer = Task { [weak self] in
            do {
                for try await chunk in chunks {
                    // The body is gone (nobody can read any more): stop producing.
                    guard let self else { return }
                    if chunk.isEmpty { continue }
                    guard await self.waitForSpace(generation) else { return }
                    self.append(chunk, generation)
                }
                self?.end(nil, generation)
            } catch {
                self?.end(SluiceError(.bodyStreamFailed, "the request body's async sequence threw: \(error)", underlying: error), generation)
            }
        }
    }

    /// Waits until the buffer is below the window; `false` when this producer should stop.
    private func waitForSpace(_ generation: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if state.generation != generation || state.stopped || state.chunks.byteCount < window || Task.isCancelled {
                condition.unlock()
                continuation.resume()
            } else {
                state.spaceWaiter = continuation
                condition.unlock()
            }
        }
        return isCurrent(generation) && !Task.isCancelled
    }

    private func isCurrent(_ generation: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.generation == generation && !state.stopped
    }

    private func append(_ chunk: Data, _ generation: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard state.generation == generation, !state.stopped else { return }
        state.chunks.append(chunk)
        condition.broadcast()
    }

    private func end(_ failure: SluiceError?, _ generation: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard state.generation == generation else { return }
        if let failure { state.failure = failure } else { state.finished = true }
        condition.broadcast()
    }
}

extension HTTPBody {
    /// A body produced by the `AsyncSequence` `makeChunks` makes, made again for each resend (see
    /// ``AsyncSequenceBodyStream``).
    ///
    /// - Parameters:
    ///   - length: The total byte count, when known. Default `nil` (chunked).
    ///   - makeChunks: Makes the sequence of chunks.
    public static func asyncSequence<Chunks: AsyncSequence & Sendable>(
        length: Int64? = nil, _ makeChunks: @escaping @Sendable () -> Chunks
    ) -> HTTPBody where Chunks.Element == Data, Chunks.Failure == any Error {
        .stream(AsyncSequenceBodyStream(length: length, makeChunks))
    }

    /// A body produced by `chunks`, sent once (see ``AsyncSequenceBodyStream``).
    ///
    /// - Parameters:
    ///   - chunks: The sequence of chunks.
    ///   - length: The total byte count, when known. Default `nil` (chunked).
    public static func asyncSequence<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64? = nil) -> HTTPBody
    where Chunks.Element == Data, Chunks.Failure == any Error {
        .stream(AsyncSequenceBodyStream(chunks, length: length))
    }
}
