import Foundation

/// The lines of a body that arrives in chunks (``ResponseBodyStream``, a session's `ByteStream`): each
/// line as text, without its line end (LF, CR or CRLF, also when split across chunks), decoded as
/// UTF-8 (a byte that is not UTF-8 becomes U+FFFD). Empty lines are kept, unlike Foundation's
/// `AsyncLineSequence`; a last line without a line end is the last element.
///
/// It reads one chunk at a time, as the caller asks for lines, so the transfer's back-pressure holds:
/// a slow reader pauses the download instead of buffering it.
public struct DataLines<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A line.
    public typealias Element = String

    let base: Base

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var splitter = LineSplitter()
        var ready: [[UInt8]] = []
        var next = 0
        var ended = false

        /// The next line; `nil` after the last.
        ///
        /// - Throws: What the body throws (a ``SluiceError`` for a session's stream).
        public mutating func next() async throws -> String? {
            while true {
                if next < ready.count {
                    next += 1
                    return String(decoding: ready[next - 1], as: UTF8.self)
                }
                if ended { return nil }
                ready = []
                next = 0
                if let chunk = try await base.next() {
                    ready = splitter.feed(chunk)
                } else {
                    ended = true
                    if let last = splitter.finish() { ready = [last] }
                }
            }
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}

extension DataLines: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The body's lines as text (see ``DataLines``): `for try await line in stream.lines { … }`.
    public var lines: DataLines<Self> { DataLines(base: self) }
}
