import Foundation

/// A response body delivered in chunks as it arrives, from any ``HTTPTransport``.
///
/// Iterate it once. Errors are ``SluiceError``s. How a transport applies back-pressure, and whether
/// dropping the iteration cancels the transfer, is the transport's: `SessionManager` pauses the
/// transfer while the reader is behind and cancels it when the iteration is dropped.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    private let base: any AsyncSequence<Data, any Error> & Sendable

    /// The chunks of `base`.
    public init<Base: AsyncSequence & Sendable>(_ base: Base) where Base.Element == Data, Base.Failure == any Error {
        self.base = base
    }

    /// The chunks of `chunks`, then the end: a body made up front (a test double's, a cache's).
    public init(chunks: [Data]) {
        self.init(chunks.async)
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: any AsyncIteratorProtocol<Data, any Error>

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// - Throws: ``SluiceError`` when the transfer failed or was cancelled.
        public mutating func next() async throws -> Data? { try await base.next() }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}

extension Array where Element == Data {
    /// The chunks one after another.
    fileprivate var async: ChunkSequence { ChunkSequence(chunks: self) }
}

/// A fixed list of chunks as an `AsyncSequence`.
private struct ChunkSequence: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Data>
        mutating func next() async throws -> Data? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}
