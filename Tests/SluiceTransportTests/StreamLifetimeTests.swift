import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// What a streamed call holds once it is over: nothing. A body that ended before its head was handed over
/// left the call holding its transfer, and with it the sink and the whole body, after the task was gone.
@Suite("Streamed calls let go of their bodies")
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
                    if Bool.random() { try await Task.sleep(for: .microseconds(Int.random(in: 0...3000))) }
                    return watched
                }
            }
            return try await group.reduce(into: [Watched]()) { $0.append($1) }
        }
        for _ in 0..<500 where watched.contains(where: { $0.buffer != nil }) { try await Task.sleep(for: .milliseconds(10)) }
        let kept = watched.filter { $0.buffer != nil }
        #expect(kept.isEmpty, "\(kept.count) of 200 buffers outlived their streams, holding \(kept.compactMap { $0.buffer?.heldBytes })")
        #expect(session.tasks.isEmpty)
    }
}
