import Foundation

/// The events of one `text/event-stream` body, parsed by the WHATWG rules (fields `data`, `event`, `id`,
/// `retry`; multi-line data; comments; a leading byte order mark; CR, LF and CRLF line ends; an event
/// not ended by a blank line when the body ends is discarded). No reconnection: for that, a session's
/// `events(for:)` (an ``EventStream``).
///
/// It reads one chunk at a time, as the caller asks for events, so a slow reader pauses the transfer.
public struct ServerSentEvents<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// An event.
    public typealias Element = ServerSentEvent

    let base: Base

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser = EventStreamParser()
        var ready: [ServerSentEvent] = []
        var next = 0

        /// The next event; `nil` at the end of the body.
        ///
        /// - Throws: What the body throws.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if next < ready.count {
                    next += 1
                    return ready[next - 1]
                }
                guard let chunk = try await base.next() else {
                    parser.connectionEnded()
                    return nil
                }
                ready = parser.feed(chunk)
                next = 0
            }
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}

extension ServerSentEvents: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The body's events (see ``ServerSentEvents``).
    public var serverSentEvents: ServerSentEvents<Self> { ServerSentEvents(base: self) }
}
