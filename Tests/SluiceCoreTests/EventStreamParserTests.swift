import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceCore

/// The WHATWG event-stream rules (HTML §9.2.6), rule by rule, and the vector body split at every byte
/// position; the line splitter under the parser. No socket.
@Suite("Event streams: the WHATWG parsing rules")
struct EventStreamParserTests {
    /// Parses `body` fed in the given pieces; the events, then the parser.
    static func parse(_ pieces: [Data]) -> ([ServerSentEvent], EventStreamParser) {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        for piece in pieces { events += parser.feed(piece) }
        parser.connectionEnded()
        return (events, parser)
    }

    static func event(_ data: String, type: String = "message", id: String = "") -> ServerSentEvent {
        ServerSentEvent(type: type, data: data, lastEventID: id)
    }

    struct Rule: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        let events: [ServerSentEvent]
        var testDescription: String { name }
    }

    static let rules: [Rule] = [
        Rule(name: "one event", body: "data: hello\n\n", events: [event("hello")]),
        Rule(name: "data lines join with LF", body: "data: a\ndata: b\ndata: c\n\n", events: [event("a\nb\nc")]),
        Rule(name: "one leading space is removed, not two", body: "data:  two\ndata:none\n\n", events: [event(" two\nnone")]),
        Rule(name: "a field without a colon has an empty value", body: "data\ndata\n\n", events: [event("\n")]),
        Rule(name: "an event type alone is not dispatched; an empty data field is", body: "event: x\n\ndata:\n\n", events: [event("")]),
        Rule(name: "no data, no event", body: "event: ping\nid: 4\n\n", events: []),
        Rule(name: "the event type names the event and is reset after it", body: "event: a\ndata: 1\n\ndata: 2\n\n",
             events: [event("1", type: "a"), event("2")]),
        Rule(name: "an empty event type is a message", body: "event:\ndata: x\n\n", events: [event("x")]),
        Rule(name: "the last event ID stays until changed", body: "id: 7\ndata: a\n\ndata: b\n\nid:\ndata: c\n\n",
             events: [event("a", id: "7"), event("b", id: "7"), event("c")]),
        Rule(name: "an id with NUL is ignored", body: "id: 1\ndata: a\n\nid: 2\u{0}\ndata: b\n\n", events: [event("a", id: "1"), event("b", id: "1")]),
        Rule(name: "comments are ignored", body: ": hi\ndata: x\n: there\n\n", events: [event("x")]),
        Rule(name: "unknown fields are ignored", body: "foo: bar\ndata: x\nDATA: y\n\n", events: [event("x")]),
        Rule(name: "CR line ends", body: "data: a\rdata: b\r\r", events: [event("a\nb")]),
        Rule(name: "CRLF line ends", body: "data: a\r\ndata: b\r\n\r\n", events: [event("a\nb")]),
        Rule(name: "mixed line ends", body: "data: a\r\ndata: b\rdata: c\n\r\n", events: [event("a\nb\nc")]),
        Rule(name: "a partial last event is discarded", body: "data: a\n\ndata: b\n", events: [event("a")]),
        Rule(name: "a last line without its end is discarded", body: "data: a\n\ndata: b", events: [event("a")]),
        Rule(name: "a colon in the value stays", body: "data: a: b\n\n", events: [event("a: b")]),
        Rule(name: "a leading byte order mark is skipped", body: "\u{FEFF}data: a\n\n", events: [event("a")]),
        Rule(name: "invalid UTF-8 becomes U+FFFD", body: "data: a\u{FFFD}b\n\n", events: [event("a\u{FFFD}b")]),
    ]

    @Test("each rule, fed whole and byte by byte", arguments: rules)
    func rule(_ rule: Rule) {
        let body = Data(rule.body.utf8)
        #expect(Self.parse([body]).0 == rule.events)
        #expect(Self.parse(body.map { Data([$0]) }).0 == rule.events)
    }

    @Test("bytes that are not UTF-8 are replaced, a field name is compared byte for byte")
    func bytes() {
        let (events, _) = Self.parse([Data([0x64, 0x61, 0x74, 0x61, 0x3A, 0x20, 0x61, 0xFF, 0x62, 0x0A, 0x0A])])
        #expect(events == [Self.event("a\u{FFFD}b")])
        // "data" followed by a combining acute accent is another field.
        #expect(Self.parse([Data("data\u{301}: x\n\ndata: y\n\n".utf8)]).0 == [Self.event("y")])
    }

    @Test("retry: digits only set the reconnection time")
    func retry() {
        #expect(Self.parse([Data("retry: 2500\n\n".utf8)]).1.reconnectionTime == 2500)
        #expect(Self.parse([Data("retry: 0\n".utf8)]).1.reconnectionTime == 0)
        for ignored in ["retry: 5s\n", "retry: -1\n", "retry: +5\n", "retry:\n", "retry: 1.5\n", "retry:  5\n"] {
            #expect(Self.parse([Data(ignored.utf8)]).1.reconnectionTime == nil, "\(ignored)")
        }
        #expect(Self.parse([Data("retry: 99999999999999999999999\n".utf8)]).1.reconnectionTime == Int.max)
    }

    @Test("only the stream's first byte order mark is skipped; one split across reads still is")
    func byteOrderMark() {
        let body = Data([0xEF, 0xBB, 0xBF] + Array("data: \u{FEFF}x\n\n".utf8))
        #expect(Self.parse([body]).0 == [Self.event("\u{FEFF}x")])
        #expect(Self.parse([body.prefix(1), body.dropFirst(1).prefix(1), body.dropFirst(2)]).0 == [Self.event("\u{FEFF}x")])
        // A BOM's first byte alone, then other bytes: not a BOM, kept (and invalid UTF-8 in a comment here).
        #expect(Self.parse([Data([0xEF]), Data(": c\ndata: y\n\n".utf8)]).0 == [Self.event("y")])
    }

    @Test("a new connection: the last event ID and retry stay, the partial event goes, a BOM is skipped again")
    func acrossConnections() {
        var parser = EventStreamParser()
        #expect(parser.feed(Data("retry: 10\nid: 5\ndata: a\n\ndata: half".utf8)) == [Self.event("a", id: "5")])
        parser.connectionEnded()
        #expect(parser.lastEventID == "5" && parser.reconnectionTime == 10)
        #expect(parser.feed(Data("\u{FEFF}: again\nid: 6\n".utf8)).isEmpty)
        parser.connectionEnded()
        // An id without its dispatch does not count.
        #expect(parser.lastEventID == "5")
        #expect(parser.feed(Data("data: b\n\n".utf8)) == [Self.event("b", id: "5")])
    }

    static let vectorEvents: [ServerSentEvent] = [
        event("first"),
        event("two\n lines, the second with a leading space", type: "update", id: "1"),
        event("no space", id: "2"),
        event("\n", id: "2"),
        event("id reset", type: "named"),
        event("NUL id ignored"),
        event("bad retry ignored"),
        event("\u{FEFF}second BOM kept"),
    ]

    static func vector() throws -> Data {
        try Data(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Vectors/events/whatwg.txt"))
    }

    @Test("the vector body gives its events however it is split: at every byte position, and byte by byte")
    func vectorEverySplit() throws {
        let body = try Self.vector()
        let (whole, parser) = Self.parse([body])
        #expect(whole == Self.vectorEvents)
        #expect(parser.reconnectionTime == 1500)
        for split in 0...body.count {
            let (events, _) = Self.parse([body.prefix(split), body.dropFirst(split)])
            #expect(events == Self.vectorEvents, "split at \(split)")
        }
        for (first, second) in [(1, 2), (3, 7), (50, 51), (100, 250)] {
            #expect(Self.parse([body.prefix(first), body.dropFirst(first).prefix(second - first), body.dropFirst(second)]).0 == Self.vectorEvents)
        }
        #expect(Self.parse(body.map { Data([$0]) }).0 == Self.vectorEvents)
    }

    @Test("lines: LF, CR and CRLF split anywhere, empty lines kept, a last line without an end")
    func lines() {
        let text = "a\nb\r\nc\rd\r\n\r\ne"
        let expected: [[UInt8]] = ["a", "b", "c", "d", "", "e"].map { Array($0.utf8) }
        let body = Data(text.utf8)
        for split in 0...body.count {
            var splitter = LineSplitter()
            var lines = splitter.feed(body.prefix(split)) + splitter.feed(body.dropFirst(split))
            if let last = splitter.finish() { lines.append(last) }
            #expect(lines == expected, "split at \(split)")
        }
        var splitter = LineSplitter()
        var lines: [[UInt8]] = []
        for byte in body { lines += splitter.feed(Data([byte])) }
        if let last = splitter.finish() { lines.append(last) }
        #expect(lines == expected)
    }
}
