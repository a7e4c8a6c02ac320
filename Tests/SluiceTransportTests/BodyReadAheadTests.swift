import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

/// A caller's body stream is read off the engine thread: one that blocks or crawls stalls only its own
/// task, and the window it is read into stays bounded.
extension TransportSuites {
    @Suite("Request bodies read ahead off the engine thread", .serialized)
    struct BodyReadAheadTests {
        /// A stream whose every read waits for `gate` (or `delay`), then gives `chunk` bytes, up to `total`.
        final class SlowStream: BodyStream, @unchecked Sendable {
            let total: Int
            let delay: TimeInterval
            let gate: DispatchSemaphore?
            private var sent = 0
            private(set) var reads = 0
            init(total: Int, delay: TimeInterval = 0, gate: DispatchSemaphore? = nil) {
                (self.total, self.delay, self.gate) = (total, delay, gate)
            }
            var contentLength: Int64? { Int64(total) }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                reads += 1
                if let gate { gate.wait() }
                if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                let count = min(buffer.count, total - sent, 1024)
                for index in 0..<count { buffer[index] = UInt8(ascii: "a") }
                sent += count
                return count
            }
        }

        /// A stream that counts what it produced, as fast as it is read.
        final class CountingStream: BodyStream, @unchecked Sendable {
            private let lock = NSLock()
            private var produced = 0
            var contentLength: Int64? { nil }
            var count: Int { lock.withLock { produced } }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                lock.withLock { produced += buffer.count }
                for index in 0..<buffer.count { buffer[index] = 0x61 }
                return buffer.count
            }
        }

        /// A rewindable stream of `total` bytes, byte n being `n % 251`, whose first read waits for `gate`.
        final class NumberedStream: BodyStream, @unchecked Sendable {
            let total: Int
            let gate: DispatchSemaphore
            private let lock = NSLock()
            private var position = 0
            private var reads = 0
            init(total: Int, gate: DispatchSemaphore) { (self.total, self.gate) = (total, gate) }
            var contentLength: Int64? { Int64(total) }
            var isRewindable: Bool { true }
            func rewind() throws(SluiceError) { lock.withLock { position = 0 } }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                if lock.withLock({ reads += 1; return reads }) == 1 { gate.wait() }
                return lock.withLock {
                    let count = min(buffer.count, total - position, 1024)
                    for index in 0..<count { buffer[index] = UInt8((position + index) % 251) }
                    position += count
                    return count
                }
            }
        }

        @Test("a request sent again reads its stream from the first byte, after a read the old reader had in flight")
        func newReaderWaitsForOldRead() async throws {
            let gate = DispatchSemaphore(value: 0)
            let stream = NumberedStream(total: 256 * 1024, gate: gate)
            let queue = BodyReadAhead.makeQueue()
            let first = BodyReadAhead(stream, rewinding: nil, queue: queue) {}
            try await Task.sleep(for: .milliseconds(50))  // its first read now waits for the gate
            first.close()
            let second = BodyReadAhead(stream, rewinding: stream, window: 8 * 1024, queue: queue) {}
            defer { second.close() }
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var released = false
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(10) {
                let take = buffer.withUnsafeMutableBytes { second.take(into: $0) }
                if case .bytes(let count) = take { received.append(contentsOf: buffer[0..<count]) }
                if case .end = take { break }
                // The old read ends while the new reader is under way (or, when it waits for the old
                // read, before it starts).
                if !released, !received.isEmpty || ContinuousClock.now - started > .milliseconds(200) {
                    released = true
                    gate.signal()
                }
                if case .wait = take { try await Task.sleep(for: .milliseconds(1)) }
            }
            #expect(received.count == stream.total)
            let expected = Data((0..<stream.total).map { UInt8($0 % 251) })
            #expect(received == expected, "the new reader's bytes are not the stream from its first byte")
        }

        @Test("a body stream blocked for 20 s beside 100 GETs of the same session: the GETs all complete at once")
        func blockedStreamBeside100Gets() async throws {
            let session = try Transport.session()
            let gate = DispatchSemaphore(value: 0)
            var upload = try Transport.request(.httpbin, "/post", method: .post)
            upload.timeout = 30
            try upload.headers.set(name: "Content-Type", value: "text/plain")
            let uploading = Task { try await session.upload(for: upload, from: .stream(SlowStream(total: 4096, gate: gate))) }
            defer { for _ in 0..<8 { gate.signal() } }
            // The stream blocks for 20 s at most, so that a transport that reads it on its engine thread
            // fails this test (the GETs come late) instead of hanging it.
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { for _ in 0..<8 { gate.signal() } }
            try await Task.sleep(for: .milliseconds(300))  // the upload is connected and waits for its stream

            let started = ContinuousClock.now
            var get = try Transport.request(.http, "/files/small.txt")
            get.timeout = 10
            let request = get
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await session.data(for: request).response.statusCode } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
            #expect(ContinuousClock.now - started < .seconds(10), "the GETs waited for the blocked stream")

            for _ in 0..<8 { gate.signal() }
            let result = try await uploading.value
            #expect(result.response.statusCode == 200)
            let echoed = try Transport.json(result.data)["data"] as? String
            #expect(echoed?.count == 4096 && echoed?.allSatisfy { $0 == "a" } == true, "\(echoed?.count ?? 0) bytes echoed")
        }

        @Test("invalidating with a stream that sleeps 50 ms per read returns promptly and ends its task")
        func invalidateWithSlowStream() async throws {
            let session = try Transport.session()
            let upload = try Transport.request(.httpbin, "/post", method: .post)
            let uploads = (0..<4).map { _ in
                Task { try await session.upload(for: upload, from: .stream(SlowStream(total: 1 << 20, delay: 0.05))) }
            }
            try await Task.sleep(for: .milliseconds(500))
            let started = ContinuousClock.now
            session.invalidate(cancelingTasks: true)
            for upload in uploads {
                let error = await #expect(throws: SluiceError.self) { try await upload.value }
                #expect(error?.code == .cancelled || error?.code == .sessionInvalidated)
            }
            #expect(ContinuousClock.now - started < .seconds(2))
        }

        @Test("a stream that never produces a byte ends in the idle timeout, not never")
        func stalledStreamIsIdle() async throws {
            let gate = DispatchSemaphore(value: 0)
            defer { gate.signal() }
            let session = try Transport.session()
            var upload = try Transport.request(.httpbin, "/post", method: .post)
            upload.timeout = 1.5
            let started = ContinuousClock.now
            let error = await #expect(throws: SluiceError.self) {
                try await session.upload(for: upload, from: .stream(SlowStream(total: 10, gate: gate)))
            }
            #expect(error?.code == .idleTimedOut)
            #expect(ContinuousClock.now - started < .seconds(6))
        }

        @Test("the window stays bounded: a fast stream is read at most a window ahead of what curl took")
        func boundedWindow() async throws {
            let stream = CountingStream()
            let reader = BodyReadAhead(stream, rewinding: nil, window: 128 * 1024, chunkSize: 64 * 1024) {}
            defer { reader.close() }
            try await Task.sleep(for: .milliseconds(300))  // nothing takes: the reader fills its window and stops
            #expect(stream.count <= 192 * 1024, "read \(stream.count) bytes ahead")
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            var taken = 0
            for _ in 0..<64 {
                let take = buffer.withUnsafeMutableBytes { reader.take(into: $0) }
                if case .bytes(let count) = take { taken += count } else { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(taken > 0)
            #expect(stream.count - taken <= 192 * 1024, "read \(stream.count - taken) bytes past what was taken")
        }
    }
}
