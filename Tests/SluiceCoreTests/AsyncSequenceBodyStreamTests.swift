import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The async-sequence request body without a socket: what a reader gets, how far the producer runs
/// ahead, a throwing sequence, stopping, rewinding. Reads block, as the transport's reader queue may,
/// so they run off the cooperative pool.
@Suite("AsyncSequenceBodyStream: request bodies from async sequences")
struct AsyncSequenceBodyStreamTests {
    /// Reads `stream` to its end (or error) on a thread of its own.
    static func readAll(_ stream: AsyncSequenceBodyStream, pause: Duration? = nil) async -> Result<Data, SluiceError> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 10_000)
                while true {
                    let read = buffer.withUnsafeMutableBytes { bytes in Result { () throws(SluiceError) in try stream.read(into: bytes) } }
                    switch read {
                    case .failure(let error):
                        continuation.resume(returning: .failure(error))
                        return
                    case .success(0):
                        continuation.resume(returning: .success(data))
                        return
                    case .success(let count):
                        data.append(contentsOf: buffer[..<count])
                        if let pause { Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18) }
                    }
                }
            }
        }
    }

    /// One read of up to `size` bytes, on a thread of its own.
    static func readOnce(_ stream: AsyncSequenceBodyStream, size: Int) async -> Result<Data, SluiceError> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: size)
                let read = buffer.withUnsafeMutableBytes { bytes in Result { () throws(SluiceError) in try stream.read(into: bytes) } }
                continuation.resume(returning: read.map { Data(buffer[..<$0]) })
            }
        }
    }

    static func chunks(_ count: Int, size: Int) -> [Data] { (0..<count).map { Data(repeating: UInt8($0 % 251), count: size) } }

    @Test("the reader gets every chunk's bytes in order, whatever the read size")
    func bytesInOrder() async throws {
        let parts = Self.chunks(50, size: 3_333)
        let stream = AsyncSequenceBodyStream(length: 166_650) { AsyncThrowingStream<Data, any Error> { c in parts.forEach { c.yield($0) }; c.finish() } }
        #expect(stream.contentLength == 166_650)
        #expect(try await Self.readAll(stream).get() == parts.reduce(Data(), +))
    }

    @Test("the producer stays within the window while nobody reads")
    func window() async throws {
        let produced = Locked(0)
        let stream = AsyncSequenceBodyStream(window: 100_000) {
            AsyncThrowingStream<Data, any Error>(unfolding: {
                produced.withLock { $0 += 10_000 }
                return Data(count: 10_000)
            })
        }
        // The first read starts the producer; then nobody reads.
        _ = try await Self.readOnce(stream, size: 1).get()
        try await Wait.until("the producer has run up to the window") { produced.withLock { $0 } >= 100_000 }
        // A bounded negative check: nothing announces that a producer did not go further, so it gets a
        // moment to try. A slow machine can only make the check weaker, never fail it.
        try await Task.sleep(for: .milliseconds(300))
        let ahead = produced.withLock { $0 }
        #expect(ahead <= 120_000, "\(ahead) bytes produced ahead")
        stream.stopReading()
    }

    struct Broken: Error {}

    @Test("a sequence that throws fails the read with bodyStreamFailed, after the bytes before it")
    func throwing() async throws {
        let stream = AsyncSequenceBodyStream {
            AsyncThrowingStream<Data, any Error> { c in
                c.yield(Data("abc".utf8))
                c.finish(throwing: Broken())
            }
        }
        #expect(try await Self.readOnce(stream, size: 16).get() == Data("abc".utf8))
        let error = await Self.readAll(stream)
        guard case .failure(let failure) = error else { Issue.record("no failure"); return }
        #expect(failure.code == .bodyStreamFailed)
        #expect(failure.underlying is Broken)
    }

    @Test("stopReading wakes a read waiting for a slow producer and ends the producer")
    func stop() async throws {
        let ended = TestSignal<Void>()
        let made = TestSignal<Void>()
        let stream = AsyncSequenceBodyStream {
            made.send()
            return AsyncStream<Data> { continuation in
                continuation.onTermination = { _ in ended.send() }
            }.map { $0 } as AsyncThrowingMapSequence<AsyncStream<Data>, Data>
        }
        let reading = Task { await Self.readAll(stream) }
        // Stop once the read has made the sequence (on a loaded machine the reading thread may start late;
        // stopped before that, no sequence exists to end).
        try await made.value("the read made the sequence")
        #expect(made.sentValue != nil, "the read never made the sequence")
        stream.stopReading()
        let result = await reading.value
        guard case .failure(let error) = result else { Issue.record("the read did not end"); return }
        #expect(error.code == .cancelled)
        try await ended.value("the producer's sequence was terminated")
        #expect(ended.sentValue != nil, "the producer's sequence was not terminated")
    }

    @Test("a stream made with a closure rewinds into a new sequence; one made from a sequence does not")
    func rewind() async throws {
        let made = Locked(0)
        let stream = AsyncSequenceBodyStream {
            let index = made.withLock { $0 += 1; return $0 }
            return AsyncThrowingStream<Data, any Error> { c in c.yield(Data("run \(index)".utf8)); c.finish() }
        }
        #expect(stream.isRewindable)
        #expect(try await Self.readAll(stream).get() == Data("run 1".utf8))
        try stream.rewind()
        #expect(try await Self.readAll(stream).get() == Data("run 2".utf8))

        let once = AsyncSequenceBodyStream(AsyncThrowingStream<Data, any Error> { c in c.yield(Data("x".utf8)); c.finish() })
        #expect(!once.isRewindable)
        #expect(throws: SluiceError.self) { try once.rewind() }
        #expect(try await Self.readAll(once).get() == Data("x".utf8))
    }
}
