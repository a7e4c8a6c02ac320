import Foundation
import SluiceCore

/// Feeds an asynchronous sequence of chunks to a push parser and finishes it.
enum ChunkFeeder {
    /// Feeds every chunk, handing each to `keep` first, then finishes the parse.
    static func feed<Chunks: AsyncSequence>(
        _ chunks: Chunks, to parser: ParserContext, keeping keep: (Data) -> Void = { _ in }
    ) async throws(SluiceError) where Chunks.Element == Data {
        var iterator = chunks.makeAsyncIterator()
        while let chunk = try await next(&iterator) {
            keep(chunk)
            try chunk.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try parser.feed(bytes) } }.get()
        }
        try parser.finish()
    }

    /// The next chunk; a ``SluiceError`` from the sequence as it is, another error as
    /// ``SluiceError/Code/bodyStreamFailed``.
    private static func next<Iterator: AsyncIteratorProtocol>(_ iterator: inout Iterator) async throws(SluiceError) -> Data?
    where Iterator.Element == Data {
        let result: Result<Data?, any Error>
        do {
            result = .success(try await iterator.next())
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let chunk):
            return chunk
        case .failure(let error as SluiceError):
            throw error
        case .failure(let error):
            throw SluiceError(.bodyStreamFailed, "the chunks of the XML document failed: \(error)", underlying: ForeignError(error))
        }
    }
}
