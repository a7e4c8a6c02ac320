import Foundation
import SluiceCore

/// A response body delivered as it arrives, in chunks, with back-pressure: when the consumer falls
/// behind by more than the session's ``SessionConfiguration/streamBufferLimit``, the transfer pauses
/// until the consumer catches up.
///
/// Iterate it once. Errors are ``SluiceError``s. Dropping the iteration early, or cancelling the task
/// that iterates, cancels the transfer.
///
/// ```swift
/// let (stream, response) = try await session.bytes(for: request)
/// for try await chunk in stream { consume(chunk) }
/// ```
public struct ByteStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    let buffer: StreamBuffer
    /// Cancels the task when the last copy goes away before the end; `nil` for the view of the body the
    /// pipeline's layers get (dropping that cancels nothing: the caller's stream is made at delivery).
    let consumer: StreamConsumer?

    init(buffer: StreamBuffer, cancelsWhenDropped: Bool = true) {
        self.buffer = buffer
        self.consumer = cancelsWhenDropped ? StreamConsumer(buffer: buffer) : nil
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: StreamBuffer
        let consumer: StreamConsumer?

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// - Throws: ``SluiceError`` when the transfer failed or was cancelled.
        public mutating func next() async throws -> Data? { try await buffer.next() }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer, consumer: consumer) }
}

/// Held by every copy of a ``ByteStream`` and its iterators: when the last goes away before the body
/// ended, nobody will read the rest, so the transfer is cancelled.
final class StreamConsumer: Sendable {
    let buffer: StreamBuffer
    init(buffer: StreamBuffer) { self.buffer = buffer }
    deinit { buffer.consumerGone() }
}

/// The chunks between the engine (producer) and one consumer.
final class StreamBuffer: Sendable {
    private struct State {
        var chunks = ChunkQueue()
        var outcome: SluiceError??  // nil: running; .some(nil): finished; .some(error): failed
        var waiter: CheckedContinuation<Data?, any Error>?
        var paused = false
        /// A body whose observers see the chunks as the consumer takes them, and the end.
        var observed: HTTPLayerBody?
    }
    private let state = Locked(State())
    let limit: Int
    /// Asks the engine to continue a paused transfer.
    let resumeTransfer: @Sendable () -> Void
    /// Cancels the transfer when the consumer goes away.
    let cancelTransfer: @Sendable () -> Void

    init(limit: Int, resumeTransfer: @escaping @Sendable () -> Void, cancelTransfer: @escaping @Sendable () -> Void) {
        self.limit = max(1, limit)
        self.resumeTransfer = resumeTransfer
        self.cancelTransfer = cancelTransfer
    }

    /// Whether the consumer is as far behind as the limit.
    var isFull: Bool { state.withLock { $0.chunks.byteCount >= limit } }

    /// The bytes the buffer holds, read or not (for tests: it must never be much more than the unread).
    var heldBytes: Int { state.withLock { $0.chunks.heldBytes } }

    /// Lets `body`'s observers see the chunks as the consumer takes them, and the end.
    func observe(_ body: HTTPLayerBody) { state.withLock { $0.observed = body } }

    /// The consumer dropped the stream: cancel a transfer that has not ended, and tell the observers of
    /// a body not read to its end that it ended there. (The observed body names this buffer as its owner:
    /// held here after the consumer went, the two would keep each other alive.)
    func consumerGone() {
        let (running, observed) = state.withLock { state in
            let observed = state.observed
            state.observed = nil
            return (state.outcome == nil, observed)
        }
        if running { cancelTransfer() }
        observed?.notify(end: .failure(SluiceError(.cancelled, "the stream was dropped before its end")))
    }

    /// Takes the observed body, once its end has come: its observers hear of nothing after that.
    private func takeObserved() -> HTTPLayerBody? {
        state.withLock { state in
            defer { state.observed = nil }
            return state.observed
        }
    }

    /// Takes bytes from the engine thread: hands them to a waiting consumer or buffers them.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.chunks.append(Data(bytes))
            return nil
        }
        waiter?.resume(returning: Data(bytes))
    }

    /// Whether the consumer is too far behind; if so the transfer is marked paused, and the consumer
    /// resumes it once it has read half the buffer.
    func pauseIfFull() -> Bool {
        state.withLock { state in
            guard state.chunks.byteCount >= limit else { return false }
            state.paused = true
            return true
        }
    }

    /// Ends the stream with success (`nil`) or an error.
    func finish(_ error: SluiceError?) {
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(error)
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    func next() async throws -> Data? {
        guard let observed = state.withLock({ $0.observed }) else { return try await nextChunk() }
        do {
            let chunk = try await nextChunk()
            if let chunk { observed.notify(chunk: chunk) } else { takeObserved()?.notify(end: .success(())) }
            return chunk
        } catch {
            takeObserved()?.notify(end: .failure(error as? SluiceError ?? SluiceError(.transportFailed, "\(error)")))
            throw error
        }
    }

    private func nextChunk() async throws -> Data? {
        enum Step {
            case chunk(Data, resume: Bool)
            case end(SluiceError?)
            case wait
        }
        let step = state.withLock { state -> Step in
            if let chunk = state.chunks.popFirst() {
                var resume = false
                if state.paused && state.chunks.byteCount <= limit / 2 {
                    state.paused = false
                    resume = true
                }
                return .chunk(chunk, resume: resume)
            }
            if let outcome = state.outcome { return .end(outcome) }
            if state.paused {
                state.paused = false
                return .chunk(Data(), resume: true)
            }
            return .wait
        }
        switch step {
        case .chunk(let chunk, let resume):
            if resume { resumeTransfer() }
            if chunk.isEmpty { return try await nextChunk() }
            return chunk
        case .end(let error):
            if let error { throw error }
            return nil
        case .wait:
            let delivered = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let immediate = state.withLock { state -> Result<Data?, SluiceError>? in
                        if !state.chunks.isEmpty || state.outcome != nil { return .success(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if immediate != nil {
                        // Something arrived between the check and the wait: look again.
                        continuation.resume(returning: Data())
                    }
                }
            } onCancel: {
                cancelTransfer()
            }
            // A chunk handed over directly; otherwise (end, or something arrived meanwhile) look again.
            if let delivered, !delivered.isEmpty { return delivered }
            return try await nextChunk()
        }
    }
}
