import Foundation

/// A server's events over a connection that is made again when it drops, as a browser's `EventSource`
/// does (WHATWG HTML §9.2): each connection's body is parsed by the event-stream rules; when it ends or
/// fails with a network error, the stream waits the reconnection time (the server's last `retry`, else
/// ``Reconnection/delay``) and connects again, sending the last event ID as `Last-Event-ID`.
///
/// A session makes one with `events(for:)`; connecting starts with the first `next()`. It ends:
/// - with `nil` when the server answers `204 No Content` (the standard's way to say "stop");
/// - with ``SluiceError/Code/eventStreamRefused`` when it answers anything but `200` with
///   `Content-Type: text/event-stream`, or with the error of a request that failed with a response;
/// - after ``Reconnection/limit`` reconnections in a row brought no event: with the last connection's
///   error, or with `nil` when each of them ended cleanly;
/// - with ``SluiceError/Code/cancelled`` when the Swift task is cancelled, at once, also while waiting
///   to reconnect.
public struct EventStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent

    /// When and how often to connect again.
    public struct Reconnection: Sendable, Hashable {
        /// The most reconnections in a row that bring no event before the stream gives up. Default 5;
        /// 0 never reconnects.
        public var limit: Int
        /// The wait before a reconnection until the server sets one with `retry`. Default 3 s (the
        /// standard leaves it to the client; browsers use a few seconds).
        public var delay: Duration

        /// Reconnection settings.
        ///
        /// - Parameters:
        ///   - limit: Reconnections in a row without an event. Default 5.
        ///   - delay: The wait before each until the server sets one. Default 3 s.
        public init(limit: Int = 5, delay: Duration = .seconds(3)) {
            self.limit = Swift.max(0, limit)
            self.delay = delay
        }
    }

    /// Opens one connection: given the last event ID (`nil` before any), the body and its head.
    public typealias Connect = @Sendable (_ lastEventID: String?) async throws(SluiceError) -> (ResponseBodyStream, HTTPResponse)

    let reconnection: Reconnection
    let connect: Connect

    /// A stream that connects with `connect` (a session's `events(for:)` makes one for you).
    ///
    /// - Parameters:
    ///   - reconnection: When and how often to connect again. Default ``Reconnection/init(limit:delay:)``.
    ///   - connect: Opens one connection.
    public init(reconnection: Reconnection = Reconnection(), connect: @escaping Connect) {
        self.reconnection = reconnection
        self.connect = connect
    }

    /// The events' data decoded from JSON as `type`, one value per event.
    ///
    /// - Parameters:
    ///   - type: The type of each event's data.
    ///   - decoder: Makes the decoder, once per iteration. Default a new `JSONDecoder`.
    public func values<Value: Decodable>(
        as type: Value.Type, decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> DecodedEvents<Value> {
        DecodedEvents(events: self, makeDecoder: decoder)
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: EventStream
        var parser = EventStreamParser()
        var body: ResponseBodyStream.AsyncIterator?
        var ready: [ServerSentEvent] = []
        var next = 0
        var connections = 0
        /// Reconnections since the last event.
        var fruitless = 0
        var lastError: SluiceError?
        var ended = false

        /// The next event; `nil` once the server said to stop.
        ///
        /// - Throws: ``SluiceError`` (see ``EventStream``).
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if next < ready.count {
                    next += 1
                    fruitless = 0
                    return ready[next - 1]
                }
                if ended { return nil }
                if body == nil { try await open() }
                guard let current = body else { continue }
                var iterator = current
                do {
                    let chunk = try await iterator.next()
                    body = iterator
                    guard let chunk else {
                        parser.connectionEnded()
                        body = nil
                        continue
                    }
                    ready = parser.feed(chunk)
                    next = 0
                } catch {
                    parser.connectionEnded()
                    body = nil
                    let failure = SluiceError.wrapping(error, as: .transportFailed, "the event stream failed")
                    if failure.code == .cancelled || Task.isCancelled { throw end(failure) }
                    lastError = failure
                }
            }
        }

        /// Connects, waiting the reconnection time first unless this is the first connection; leaves
        /// `body` nil after a network failure (to be tried again) and throws what ends the stream.
        private mutating func open() async throws(SluiceError) {
            if connections > 0 {
                guard fruitless < stream.reconnection.limit else {
                    // Given up: with the last failure, or (when each connection ended cleanly) at the end.
                    if let lastError { throw end(lastError) }
                    ended = true
                    return
                }
                fruitless += 1
                let wait = parser.reconnectionTime.map { Duration.milliseconds($0) } ?? stream.reconnection.delay
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    throw end(SluiceError(.cancelled, "cancelled while waiting to reconnect to the event stream"))
                }
            }
            connections += 1
            let answer: (ResponseBodyStream, HTTPResponse)
            do {
                answer = try await stream.connect(parser.lastEventID.isEmpty ? nil : parser.lastEventID)
            } catch {
                // A failure with a response (a refused status) or a cancel ends the stream; a network
                // failure is tried again.
                if error.code == .cancelled || Task.isCancelled || error.response != nil { throw end(error) }
                lastError = error
                return
            }
            let (stream, head) = answer
            if head.statusCode == 204 {
                ended = true
                return
            }
            let type = head.contentType?.essence
            guard head.statusCode == 200, type == "text/event-stream" else {
                throw end(SluiceError(
                    .eventStreamRefused,
                    "the event stream's server answered \(head.statusCode) with Content-Type \(type ?? "none"), not 200 with text/event-stream",
                    response: head))
            }
            body = stream.makeAsyncIterator()
            lastError = nil
        }

        private mutating func end(_ error: SluiceError) -> SluiceError {
            ended = true
            body = nil
            return error
        }
    }

    /// Starts the stream: the first connection is made by the first `next()`.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

/// An ``EventStream``'s events with their data decoded from JSON (``EventStream/values(as:decoder:)``).
public struct DecodedEvents<Value: Decodable>: AsyncSequence, Sendable {
    /// A decoded event's data.
    public typealias Element = Value

    let events: EventStream
    let makeDecoder: @Sendable () -> JSONDecoder

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var events: EventStream.AsyncIterator
        let decoder: JSONDecoder

        /// The next event's data, decoded.
        ///
        /// - Throws: ``SluiceError/Code/malformedEventData`` for data that is not `Value`; what the
        ///   event stream throws.
        public mutating func next() async throws -> Value? {
            guard let event = try await events.next() else { return nil }
            return try event.decoded(as: Value.self, decoder: decoder)
        }
    }

    /// Starts the stream.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events.makeAsyncIterator(), decoder: makeDecoder())
    }
}
