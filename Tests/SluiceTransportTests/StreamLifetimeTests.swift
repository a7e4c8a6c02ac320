import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// What a streamed call holds once it is over: nothing. A body that ended before its head was handed over
/// left the call holding its transfer, and with it the sink and the whole body, after the task was gone.
@Suite("Streamed calls let go of their bodies", .tags(.server), .needsServers)
struct StreamLifetimeTests {
    final class Watched: @unchecked Sendable {
        weak var buffer: StreamBuffer?
        weak var task: SessionTask?
    }

    @Test("200 streams dropped unread, at once or a moment later, while or after their bodies arrive: every buffer is freed")
    func droppedStreamsAreFreed() async throws {
        let session = SessionManager(configuration: SessionConfiguration())
        let small = try TestEnvironment.request(.http, "/plugins/text.txt")
        let large = try TestEnvironment.request(.http, "/files/1m.bin")
        let watched = try await withThrowingTaskGroup(of: Watched.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let watched = Watched()
                    let (stream, _) = try await session.bytes(for: index.isMultiple(of: 2) ? small : large)
                    watched.buffer = stream.buffer
                    watched.task = session.tasks.first
                    // Random jitter (the behaviour under test): dropped at once or a moment later.
                    if Bool.random() { try await Task.sleep(for: .microseconds(Int.random(in: 0...3000))) }
                    return watched
                }
            }
            return try await group.reduce(into: [Watched]()) { $0.append($1) }
        }
        try await Wait.until(
            "every buffer freed and no task left (\(watched.filter { $0.buffer != nil }.count) of 200 buffers held, \(session.tasks.count) tasks)"
        ) {
            !watched.contains(where: { $0.buffer != nil }) && session.tasks.isEmpty
        }
        let kept = watched.filter { $0.buffer != nil }
        #expect(kept.isEmpty, "\(kept.count) of 200 buffers outlived their streams, holding \(kept.compactMap { $0.buffer?.heldBytes })")
        #expect(session.tasks.isEmpty)
    }

    /// A layer that watches every body, as a cache or a tracer does.
    struct Observing: HTTPLayer {
        let ends = Locked<[Result<Void, SluiceError>]>([])
        func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
            var answer = try await next(request, context: context)
            answer.body = answer.body.observed(onChunk: { _ in }, onEnd: { [ends] end in ends.withLock { $0.append(end) } })
            return answer
        }
    }

    @Test("streams whose bodies a layer observes: read to the end or dropped unread, each buffer is freed and its observers hear the end once")
    func observedStreamsAreFreed() async throws {
        let observing = Observing()
        var configuration = SessionConfiguration()
        configuration.layers.append(observing)
        let session = SessionManager(configuration: configuration)
        let request = try TestEnvironment.request(.http, "/files/1m.bin")
        var watched: [Watched] = []
        for index in 0..<20 {
            let entry = Watched()
            let (stream, _) = try await session.bytes(for: request)
            entry.buffer = stream.buffer
            if index.isMultiple(of: 2) {
                var count = 0
                for try await chunk in stream { count += chunk.count }
                #expect(count == 1 << 20)
            }
            watched.append(entry)
        }
        try await Wait.until(
            "every buffer freed and 20 ends observed (\(observing.ends.withLock { $0.count }) observed)"
        ) {
            !watched.contains(where: { $0.buffer != nil }) && observing.ends.withLock({ $0.count }) >= 20
        }
        #expect(watched.filter { $0.buffer != nil }.isEmpty, "buffers outlived their streams")
        let ends = observing.ends.withLock { $0 }
        #expect(ends.count == 20)
        #expect(ends.filter { (try? $0.get()) != nil }.count == 10, "the bodies read to the end end in success")
        let failures = ends.compactMap { end -> String? in
            if case .failure(let error) = end { return error.code.rawValue }
            return nil
        }
        #expect(failures == Array(repeating: SluiceError.Code.cancelled.rawValue, count: 10))
    }
}
