import OpenAPIRuntime
import SluiceCore

/// A request body's chunks that can be iterated again (`.multiple`), counting how many times it was.
struct CountingChunks: AsyncSequence, Sendable {
    typealias Element = OpenAPIRuntime.HTTPBody.ByteChunk
    typealias Failure = any Error

    let chunks: [OpenAPIRuntime.HTTPBody.ByteChunk]
    let iterations = Locked(0)

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<OpenAPIRuntime.HTTPBody.ByteChunk>

        mutating func next() async throws -> OpenAPIRuntime.HTTPBody.ByteChunk? {
            await Task.yield()
            return remaining.popFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        iterations.withLock { $0 += 1 }
        return AsyncIterator(remaining: chunks[...])
    }
}
