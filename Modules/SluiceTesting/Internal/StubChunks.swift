import Foundation
import SluiceCore

/// A stub's body as it arrives: each chunk after its interval, then the end or the stub's failure.
/// Pulled by the session's delivery, so a reader that is behind holds the next chunk back.
struct StubChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let chunks: [Data]
    let interval: Duration
    let timeout: Duration
    let failure: SluiceError?
    let context: HTTPLayerContext
    let request: HTTPRequest

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: StubChunks
        var index = 0
        var ended = false

        mutating func next() async throws -> Data? {
            guard !ended else { return nil }
            if index < body.chunks.count {
                try await StubClock.wait(body.interval, timeout: body.timeout, context: body.context, request: body.request)
                index += 1
                return body.chunks[index - 1]
            }
            ended = true
            if let failure = body.failure { throw failure }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
