import Foundation
import SluiceCore

/// Feeds an asynchronous sequence of chunks to a push parser and finishes it.
enum ChunkFeeder {
    static func feed<Chunks: AsyncSequence>(_ chunks: Chunks, to parser: ParserContext) async throws(SluiceError)
    where Chunks.Element == Data {
        do {
            for try await chunk in chunks {
                try chunk.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try parser.feed(bytes) } }.get()
            }
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.bodyStreamFailed, "the chunks of the XML document failed: \(error)", underlying: ForeignError(error))
        }
        try parser.finish()
    }
}
