import Foundation
import SluiceCore
import SluiceXML
import Testing

@Suite("XML events (SAX-style, push parser)")
struct XMLEventParserTests {
    /// The events of `xml`, parsed from memory at once.
    static func events(_ xml: String) throws -> [XMLEvent] {
        var events: [XMLEvent] = []
        try XMLEventParser.parse(Data(xml.utf8)) { events.append($0) }
        return events
    }

    /// The events of `bytes` fed in chunks of `size` bytes.
    static func events(_ bytes: [UInt8], chunk size: Int) throws -> [XMLEvent] {
        var events: [XMLEvent] = []
        let parser = try XMLEventParser { events.append($0) }
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + size, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { try parser.feed($0) }
            offset = end
        }
        try parser.finish()
        return events
    }

    @Test("start and end elements with namespaces and attributes, characters, CDATA, comments, processing instructions")
    func events() throws {
        let events = try Self.events(XMLTreeTests.feed)
        let atom = "http://www.w3.org/2005/Atom"
        let media = "http://search.yahoo.com/mrss/"
        #expect(events.first == .comment(" before the root "))
        #expect(events[1] == .startElement(
            XMLName("feed", namespaceURI: atom),
            attributes: [XMLAttribute(name: XMLName("lang", prefix: "xml", namespaceURI: "http://www.w3.org/XML/1998/namespace"), value: "en")],
            namespaces: [XMLNamespace(prefix: nil, uri: atom), XMLNamespace(prefix: "media", uri: media)]))
        #expect(events.contains(.characters("Sluice & friends \u{263A}")))
        #expect(events.contains(.cdata("<b>bold</b> & raw")))
        #expect(events.contains(.processingInstruction(target: "render", data: "fast")))
        #expect(events.contains(.startElement(
            XMLName("entry", namespaceURI: atom),
            attributes: [XMLAttribute(name: XMLName("id"), value: "1"), XMLAttribute(name: XMLName("rating", prefix: "media", namespaceURI: media), value: "adult")],
            namespaces: [])))
        #expect(events.contains(.endElement(XMLName("thumbnail", prefix: "media", namespaceURI: media))))
        #expect(events.contains(.startElement(XMLName("plain"), attributes: [], namespaces: [XMLNamespace(prefix: nil, uri: "")])))
        #expect(events.last == .comment(" after the root "))
        let starts = events.filter { if case .startElement = $0 { true } else { false } }.count
        let ends = events.filter { if case .endElement = $0 { true } else { false } }.count
        #expect(starts == 9 && ends == 9)
    }

    @Test("the same events whatever the chunks: 1, 2, 3, 7, 64 and 4096 bytes", arguments: [1, 2, 3, 7, 64, 4096])
    func chunking(size: Int) throws {
        let text = String(repeating: "é€𝄞 text & more ", count: 200)
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;")
        let xml = XMLTreeTests.feed.replacingOccurrences(of: "<title>First</title>", with: "<title>\(escaped)</title>")
            + "<!-- \(text.replacingOccurrences(of: "&", with: "and")) -->"
        let whole = try Self.events(xml)
        #expect(whole.contains(.characters(text)))
        #expect(try Self.events(Array(xml.utf8), chunk: size) == whole)
    }

    @Test("text longer than maximumTextBytes comes in pieces cut at the same places whatever the chunks")
    func longText() throws {
        let run = String(repeating: "ab€", count: XMLEvent.maximumTextBytes / 2)  // 2.5 MiB
        let xml = Array("<a>\(run)<![CDATA[\(run)]]></a>".utf8)
        let large = try Self.events(xml, chunk: 1 << 20)
        let small = try Self.events(xml, chunk: 4093)
        #expect(large == small)
        let texts = large.compactMap { if case .characters(let text) = $0 { text } else { nil } }
        let cdata = large.compactMap { if case .cdata(let text) = $0 { text } else { nil } }
        #expect(texts.count == 3 && cdata.count == 3)
        #expect(texts.joined() == run && cdata.joined() == run)
        #expect(texts.allSatisfy { $0.utf8.count <= XMLEvent.maximumTextBytes })
    }

    /// `bytes` as an async sequence of `size`-byte chunks, as `SessionManager.bytes(for:)` delivers a body.
    static func chunks(_ bytes: [UInt8], size: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) { continuation.yield(Data(bytes[start..<min(start + size, bytes.count)])) }
            continuation.finish()
        }
    }

    @Test("a handler that throws stops the parse with its error; no event follows")
    func handlerError() throws {
        var seen = 0
        let error = #expect(throws: SluiceError.self) {
            try XMLEventParser.parse(Data("<a><b/><c/><d/></a>".utf8)) { (event) throws(SluiceError) in
                seen += 1
                if case .startElement(let name, _, _) = event, name.localName == "c" {
                    throw SluiceError(.pluginFailed, "stop at c")
                }
            }
        }
        #expect(error?.message == "stop at c")
        #expect(seen == 4)  // a, b, /b, c
    }

    @Test("a handler that throws at a pushed CDATA section with a CR: its error, nothing more read")
    func handlerErrorAtPushedCDATA() throws {
        // The pushed CDATA is normalized (CR LF to LF) before it goes out; a throwing handler stops the parse,
        // which frees libxml2's input, so the section's bytes must not be read after the event (make
        // sanitize runs this under AddressSanitizer).
        let parser = try XMLEventParser { (event) throws(SluiceError) in
            if case .cdata = event { throw SluiceError(.pluginFailed, "stop at the CDATA") }
        }
        let error = #expect(throws: SluiceError.self) {
            try Array("<a><![CDATA[one\r\ntwo\r]]></a>".utf8).withUnsafeBytes { try parser.feed($0) }
            try parser.finish()
        }
        #expect(error?.message == "stop at the CDATA")
    }

    @Test("events from an async sequence of chunks, as SessionManager.bytes(for:) gives them")
    func asyncChunks() async throws {
        let bytes = Array(XMLTreeTests.feed.utf8)
        let chunks = XMLEventParserTests.chunks(bytes, size: 5)
        var events: [XMLEvent] = []
        try await XMLEventParser.parse(chunks) { events.append($0) }
        #expect(events == (try Self.events(XMLTreeTests.feed)))
        let tree = try await XMLTree.parse(AsyncStream<Data> { continuation in
            continuation.yield(Data(bytes.prefix(10)))
            continuation.yield(Data(bytes.dropFirst(10)))
            continuation.finish()
        })
        #expect(tree == (try XMLTree(parsing: Data(bytes))))
    }

    @Test("an error from the chunks ends the parse with that error")
    func failingChunks() async {
        struct Broken: Error {}
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("<a>".utf8))
            continuation.finish(throwing: Broken())
        }
        let error = await #expect(throws: SluiceError.self) { try await XMLEventParser.parse(chunks) { _ in } }
        #expect(error?.code == .bodyStreamFailed)
    }

    @Test("text gathered before an element past the depth limit is delivered before the error, whole and in chunks")
    func textBeforeDepthLimit() throws {
        let document = Data((String(repeating: "<a>", count: 256) + "tail text<b/>" + String(repeating: "</a>", count: 256)).utf8)
        for chunk in [document.count, 7] {
            var events: [XMLEvent] = []
            let error = #expect(throws: SluiceError.self) {
                let parser = try XMLEventParser { events.append($0) }
                var offset = 0
                while offset < document.count {
                    try parser.feed(document[offset..<min(offset + chunk, document.count)])
                    offset += chunk
                }
                try parser.finish()
            }
            #expect(error?.code == .xmlMalformed)
            #expect(events.count == 257)
            #expect(events.last == .characters("tail text"))
        }
    }
}
