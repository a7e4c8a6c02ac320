import Foundation

/// The event-stream and line parsers driven synchronously over chunks, for the fuzz target
/// `FuzzEventStream` (a package of its own, which sees only public and SPI symbols).
@_spi(Fuzzing)
public enum EventStreamReading {
    /// What one connection's chunks give: the events, the last event ID and the reconnection time after
    /// the connection ended.
    public struct Reading: Equatable {
        public let events: [ServerSentEvent]
        public let lastEventID: String
        public let reconnectionTime: Int?
    }

    /// Parses `chunks` as one connection's body.
    public static func events(_ chunks: [Data]) -> Reading {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks { events += parser.feed(chunk) }
        parser.connectionEnded()
        return Reading(events: events, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
    }

    /// Splits `chunks` into lines (without their ends), the last one without an end included.
    public static func lines(_ chunks: [Data]) -> [[UInt8]] {
        var splitter = LineSplitter()
        var lines: [[UInt8]] = []
        for chunk in chunks { lines += splitter.feed(chunk) }
        if let last = splitter.finish() { lines.append(last) }
        return lines
    }
}
