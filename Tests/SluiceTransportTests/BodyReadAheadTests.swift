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
        /// A stream whose every read waits for `gate` (or `delay`), then gives up to 1 KiB, up to `total`.
        final class SlowStream: BodyStream, @unchecked Sendable {
            let total: Int
            let delay: TimeInterval
            let gate: DispatchSemaphore?
            /// Sent when the first read begins, before it waits.
            let readBegan = TestSignal<Void>()
            /// Sent when a read got through the gate.
            let gateOpened = TestSignal<Void>()
            private let produced = Locked(0)
            private(set) var reads = 0
            init(total: Int, delay: TimeInterval = 0, gate: DispatchSemaphore? = nil) {
                (self.total, self.delay, self.gate) = (total, delay, gate)
            }
            var contentLength: Int64? { Int64(total) }
            /// The bytes given so far.
            var sent: Int { produced.withLock { $0 } }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                reads += 1
                readBegan.send()
                if let gate {
                    gate.wait()
                    gateOpened.send()
                }
                // A slow producer: the behaviour under test, on the reader's queue.
                if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                return produced.withLock { sent in
                    let count = min(buffer.count, total - sent, 1024)
                    for index in 0..<count { buffer[index] = UInt8(ascii: "a") }
                    sent += count
                    return count
                }
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
            /// Sent when the first read begins, before it waits for the gate.
            let firstReadBegan = TestSignal<Void>()
            private let lock = NSLock()
            private var position = 0
            private var reads = 0
            init(total: Int, gate: DispatchSemaphore) { (self.total, self.gate) = (total, gate) }
            var contentLength: Int64? { Int64(total) }
            var isRewindable: Bool { true }
            func rewind() throws(SluiceError) { lock.withLock { position = 0 } }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                if lock.withLock({ reads += 1; return reads }) == 1 {
                    firstReadBegan.send()
                    gate.wait()
                }
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
            try await stream.firstReadBegan.value("the first reader's first read began")  // it now waits for the gate
            first.close()
            let second = BodyReadAhead(stream, rewinding: stream, window: 8 * 1024, queue: queue) {}
            defer { second.close() }
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var released = false
            let created = ContinuousClock.now
            try await Wait.until("the new reader delivered the stream to its end") {
                while true {
                    let take = buffer.withUnsafeMutableBytes { second.take(into: $0) }
                    if case .bytes(let count) = take { received.append(contentsOf: buffer[0..<count]) }
                    // The old read ends while the new reader is under way (or, when it waits for the old
                    // read, before it starts). A reader that waits has no event to show it, so it gets
                    // 200 ms, a bounded negative check: one that did not wait would have read by then. A
                    // slow machine only makes that weaker; the bytes below are checked either way.
                    if !released, !received.isEmpty || ContinuousClock.now - created > .milliseconds(200) {
                        released = true
                        gate.signal()
                    }
                    switch take {
                    case .bytes: continue
                    case .end: return true
                    case .wait: return false
                    case .failed(let error): throw error
                    }
                }
            }
            #expect(received.count == stream.total)
            let expected = Data((0..<stream.total).map { UInt8($0 % 251) })
            #expect(received == expected, "the new reader's bytes are not the stream from its first byte")
        }

        @Test("a body stream blocked for 20 s beside 100 GETs of the same session: the GETs all complete at once", .tags(.server), .needsServers)
        func blockedStreamBeside100Gets() async throws {
            let session = try Transport.session()
            let gate = DispatchSemaphore(value: 0)
            var upload = try Transport.request(.httpbin, "/post", method: .post)
            upload.timeout = 30
            try upload.headers.set(name: "Content-Type", value: "text/plain")
            let stream = SlowStream(total: 4096, gate: gate)
            let uploading = Task { try await session.upload(for: upload, from: .stream(stream)) }
            defer { for _ in 0..<8 { gate.signal() } }
            // The stream blocks for 20 s at most, so that a transport that reads it on its engine thread
            // fails this test (the GETs come only after the gate opened) instead of hanging it.
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { for _ in 0..<8 { gate.signal() } }
            try await stream.readBegan.value("the upload's stream was asked for its first bytes")  // it now blocks

            var get = try Transport.request(.http, "/files/small.txt")
            get.timeout = 10
            let request = get
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await session.data(for: request).response.statusCode } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
            // Shown by the order of events, not by a time: the GETs all answered while the stream still blocked.
            #expect(stream.gateOpened.sentValue == nil, "the GETs waited for the blocked stream")

            for _ in 0..<8 { gate.signal() }
            let result = try await uploading.value
            #expect(result.response.statusCode == 200)
            let echoed = try Transport.json(result.data)["data"] as? String
            #expect(echoed?.count == 4096 && echoed?.allSatisfy { $0 == "a" } == true, "\(echoed?.count ?? 0) bytes echoed")
        }

        @Test("invalidating with a stream that sleeps 50 ms per read returns promptly and ends its task", .tags(.server), .needsServers)
        func invalidateWithSlowStream() async throws {
            let session = try Transport.session()
            let upload = try Transport.request(.httpbin, "/post", method: .post)
            // 1 KiB a read, 50 ms a read: each stream takes about 50 s to its end.
            let streams = (0..<4).map { _ in SlowStream(total: 1 << 20, delay: 0.05) }
            let uploads = streams.map { stream in
                Task { try await session.upload(for: upload, from: .stream(stream)) }
            }
            for stream in streams { try await stream.readBegan.value("an upload's stream was asked for its first bytes") }
            let started = ContinuousClock.now
            session.invalidate(cancelingTasks: true)
            for upload in uploads {
                let error = await #expect(throws: SluiceError.self) { try await upload.value }
                #expect(error?.code == .cancelled || error?.code == .sessionInvalidated)
            }
            // Each upload ended with its stream far from its end: nothing waited for the streams.
            #expect(streams.allSatisfy { $0.sent < $0.total }, "\(streams.map(\.sent)) bytes read")
            // Promptly: a read under way (50 ms) and the cancel take well under a second. 10 s is ten
            // times that and more, which a loaded machine does not reach, and still a fifth of the
            // time the streams would take to their end.
            #expect(ContinuousClock.now - started < .seconds(10))
        }

        @Test("a stream that never produces a byte ends in the idle timeout, not never", .tags(.server), .needsServers)
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
            // Not never: ten times the 1.5 s idle timeout, a bound a loaded machine does not reach.
            #expect(ContinuousClock.now - started < .seconds(15))
        }

        @Test("the window stays bounded: a fast stream is read at most a window ahead of what curl took")
        func boundedWindow() async throws {
            let stream = CountingStream()
            let queue = BodyReadAhead.makeQueue()
            let reader = BodyReadAhead(stream, rewinding: nil, window: 128 * 1024, chunkSize: 64 * 1024, queue: queue) {}
            defer { reader.close() }
            // Nothing takes: the reader fills its window and stops.
            try await Wait.until("the reader filled its window") { stream.count >= 128 * 1024 }
            // Each read queues the next on the reader's queue before it returns. Once the queue has run
            // what was queued before, three times over, a reader that went on past its window has read
            // at least twice more (256 KiB): stopping is shown by the queue's order, not by a time.
            for _ in 0..<3 {
                let drained = TestSignal<Void>()
                queue.async { drained.send() }
                try await drained.value("the reader's queue ran what was queued before")
            }
            #expect(stream.count <= 192 * 1024, "read \(stream.count) bytes ahead")
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            var taken = 0
            try await Wait.until("1 MiB taken through the window") {
                while taken < 1 << 20, case .bytes(let count) = buffer.withUnsafeMutableBytes({ reader.take(into: $0) }) {
                    taken += count
                }
                return taken >= 1 << 20
            }
            #expect(taken > 0)
            #expect(stream.count - taken <= 192 * 1024, "read \(stream.count - taken) bytes past what was taken")
        }
    }
}
