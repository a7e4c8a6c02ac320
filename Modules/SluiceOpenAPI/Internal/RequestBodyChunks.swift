import Foundation
import OpenAPIRuntime

/// The chunks of an OpenAPIRuntime request body as `Data`, for `AsyncSequenceBodyStream`.
///
/// Each iteration iterates `body` again: a body whose iteration behavior is `.single` fails the second one
/// with OpenAPIRuntime's own error, so only a `.multiple` body is given to a rewindable stream.
struct RequestBodyChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let body: OpenAPIRuntime.HTTPBody

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Element = Data
        typealias Failure = any Error

        var base: OpenAPIRuntime.HTTPBody.AsyncIterator

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else { return nil }
            return Data(chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator()) }
}
