import Foundation
import SluiceCore
import SluiceTransport
import SluiceTestSupport
import Testing

/// Lines, JSON Lines and the reconnecting event stream over scripted chunks and connections. No socket.
@Suite("Stream sequences: lines, JSON Lines, reconnecting event streams")
struct StreamSequencesTests {
    static func body(_ chunks: [String]) -> ResponseBodyStream { ResponseBodyStream(chunks: chunks.map { Data($0.utf8) }) }

    @Test("lines across chunks, with every line end, and the last line without one")
    func lines() async throws {
        var lines: [String] = []
        for try await line in Self.body(["one\ntw", "o\r", "\nthree\r", "four\n\nfi", "ve"]).lines { lines.append(line) }
        #expect(lines == ["one", "two", "three", "four", "", "five"])
    }

    struct Item: Decodable, Equatable, Sendable { let n: Int }

    @Test("JSON Lines: one value per line, blank lines skipped, CRLF allowed")
    func jsonLines() async throws {
        var values: [Item] = []
        for try await value in Self.body([#"{"n":1}"# + "\r\n", "\n", #"{"n""#, #":2}"# + "\n   \n", #"{"n":3}"#]).jsonLines(of: Item.self) {
            values.append(value)
        }
        #expect(values == [Item(n: 1), Item(n: 2), Item(n: 3)])
    }

    @Test("JSON Lines: a malformed line fails with its number, after the values before it")
    func malformedLine() async throws {
        var values: [Item] = []
        let error = await #expect(throws: SluiceError.self) {
            for try await value in Self.body([#"{"n":1}"# + "\n\n", #"{"n":2}"# + "\n", #"{"n":"three"}"# + "\n", #"{"n":4}"#]).jsonLines(of: Item.self) {
                values.append(value)
            }
        }
        #expect(values == [Item(n: 1), Item(n: 2)])
        #expect(error?.code == .malformedJSONLine)
        let line = try #require(error?.underlying as? MalformedJSONLine)
        #expect(line.lineNumber == 4)
        #expect(line.line == #"{"n":"three"}"#)
    }

    /// A scripted server: each connection's answer, and the Last-Event-ID each connection sent.
    final class Script: Sendable {
        let answers: [@Sendable (String?) throws(SluiceError) -> (ResponseBodyStream, HTTPResponse)]
        let seen = Locked<[String?]>([])

        init(_ answers: [@Sendable (String?) throws(SluiceError) -> (ResponseBodyStream, HTTPResponse)]) { self.answers = answers }

        func stream(_ reconnection: EventStream.Reconnection) -> EventStream {
            EventStream(reconnection: reconnection) { [self] (lastEventID: String?) throws(SluiceError) in
                let index = seen.withLock { seen -> Int in
                    seen.append(lastEventID)
                    return seen.count - 1
                }
                return try answers[min(index, answers.count - 1)](lastEventID)
            }
        }

        static func events(_ chunks: [String], status: Int = 200, type: String = "text/event-stream")
            -> @Sendable (String?) throws(SluiceError) -> (ResponseBodyStream, HTTPResponse)
        {
            { _ in (StreamSequencesTests.body(chunks), HTTPResponse(statusCode: status, headers: ["Content-Type": type])) }
        }

        static func fail(_ code: SluiceError.Code, response: HTTPResponse? = nil) -> @Sendable (String?) throws(SluiceError) -> (ResponseBodyStream, HTTPResponse) {
            { _ throws(SluiceError) in throw SluiceError(code, "scripted", response: response) }
        }

        /// A body that sends `chunks`, then fails with `code` (a connection lost mid-body).
        static func cut(_ chunks: [String], _ code: SluiceError.Code) -> @Sendable (String?) throws(SluiceError) -> (ResponseBodyStream, HTTPResponse) {
            { _ in
                let stream = AsyncThrowingStream<Data, any Error> { continuation in
                    for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
                    continuation.finish(throwing: SluiceError(code, "cut"))
                }
                return (ResponseBodyStream(stream), HTTPResponse(statusCode: 200, headers: ["Content-Type": "text/event-stream"]))
            }
        }
    }

    static func collect(_ stream: EventStream) async -> ([ServerSentEvent], SluiceError?) {
        var events: [ServerSentEvent] = []
        do {
            for try await event in stream { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error as? SluiceError)
        }
    }

    static let fast = EventStream.Reconnection(limit: 3, delay: .milliseconds(5))

    @Test("a dropped or ended connection is made again with Last-Event-ID, after the server's retry time")
    func reconnects() async throws {
        let script = Script([
            Script.events(["retry: 20\nid: 1\ndata: a\n\nid: 2\ndata: b\n\ndata: partial"]),
            Script.cut(["id: 3\ndata: c\n\n", "id: 4\nda"], .connectionLost),
            Script.events(["data: d\n\n"]),
            Script.events([], status: 204),
        ])
        let started = ContinuousClock.now
        let (events, error) = await Self.collect(script.stream(Self.fast))
        #expect(error == nil)
        #expect(events.map(\.data) == ["a", "b", "c", "d"])
        #expect(events.map(\.lastEventID) == ["1", "2", "3", "3"])
        #expect(script.seen.withLock { $0 } == [nil, "2", "3", "3"])
        // Three reconnections, each after the server's 20 ms. A lower bound: a busy machine only makes it longer.
        #expect(ContinuousClock.now - started >= .milliseconds(60))
    }

    @Test("network failures are retried up to the limit in a row, then the last one is thrown")
    func limit() async throws {
        let script = Script([Script.events(["data: a\n\n"]), Script.fail(.cannotConnect)])
        let (events, error) = await Self.collect(script.stream(Self.fast))
        #expect(events.map(\.data) == ["a"])
        #expect(error?.code == .cannotConnect)
        #expect(script.seen.withLock { $0.count } == 4, "one connection, then 3 reconnections")

        let never = Script([Script.fail(.cannotConnect)])
        let (none, first) = await Self.collect(never.stream(EventStream.Reconnection(limit: 0)))
        #expect(none.isEmpty && first?.code == .cannotConnect && never.seen.withLock { $0.count } == 1)
    }

    @Test("clean ends without events end the stream at the limit, without an error")
    func cleanEnds() async throws {
        let script = Script([Script.events([": nothing\n"])])
        let (events, error) = await Self.collect(script.stream(Self.fast))
        #expect(events.isEmpty && error == nil)
        #expect(script.seen.withLock { $0.count } == 4)
    }

    @Test("refusals end the stream without reconnecting: another status, another type, an error with a response")
    func refusals() async throws {
        for answer in [Script.events(["data: x\n\n"], status: 201), Script.events(["data: x\n\n"], type: "text/plain")] {
            let script = Script([answer])
            let (events, error) = await Self.collect(script.stream(Self.fast))
            #expect(events.isEmpty && error?.code == .eventStreamRefused)
            #expect(script.seen.withLock { $0.count } == 1)
        }
        let refused = Script([Script.fail(.transportFailed, response: HTTPResponse(statusCode: 503))])
        let (_, error) = await Self.collect(refused.stream(Self.fast))
        #expect(error?.response?.statusCode == 503 && refused.seen.withLock { $0.count } == 1)
    }

    @Test("cancelling the Swift task ends the stream at once, also while it waits to reconnect")
    func cancellation() async throws {
        let script = Script([Script.events(["data: a\n\n"])])
        let stream = script.stream(EventStream.Reconnection(limit: 5, delay: .seconds(120)))
        let received = TestSignal<Void>()
        let task = Task {
            var events: [ServerSentEvent] = []
            do {
                for try await event in stream { events.append(event); received.send() }
                return (events, SluiceError?.none)
            } catch {
                return (events, error as? SluiceError)
            }
        }
        // Cancelled once the first event is in, so the stream is waiting to reconnect.
        try await received.value("the first event")
        let cancelled = ContinuousClock.now
        task.cancel()
        let (events, error) = await task.value
        #expect(events.map(\.data) == ["a"])
        #expect(error?.code == .cancelled)
        // Ending takes milliseconds; the bound only tells it from the 120 s wait, with room for a busy
        // machine's stalls, and is measured from the cancel alone.
        #expect(ContinuousClock.now - cancelled < .seconds(60))
    }

    @Test("values(as:) decodes each event's data; data of another shape fails with malformedEventData")
    func decoded() async throws {
        let script = Script([Script.events([#"data: {"n": 1}"# + "\n\n" + #"data: {"n": "x"}"# + "\n\n"]), Script.events([], status: 204)])
        var values: [Item] = []
        let error = await #expect(throws: SluiceError.self) {
            for try await value in script.stream(Self.fast).values(as: Item.self) { values.append(value) }
        }
        #expect(values == [Item(n: 1)])
        #expect(error?.code == .malformedEventData)
    }
}
