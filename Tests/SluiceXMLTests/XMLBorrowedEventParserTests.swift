import Foundation
import SluiceCore
import SluiceXML
import Testing

@Suite("XML borrowed events (zero-copy views)")
struct XMLBorrowedEventParserTests {
    /// The borrowed events of `bytes` as values, parsed from memory at once.
    static func events(_ bytes: [UInt8]) throws -> [XMLEvent] {
        var events: [XMLEvent] = []
        try XMLBorrowedEventParser.parse(Data(bytes)) { events.append($0.event) }
        return events
    }

    /// The borrowed events of `bytes` as values, fed in chunks of `size` bytes.
    static func events(_ bytes: [UInt8], chunk size: Int) throws -> [XMLEvent] {
        var events: [XMLEvent] = []
        let parser = try XMLBorrowedEventParser { events.append($0.event) }
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + size, bytes.count)
            try bytes[offset..<end].withUnsafeBytes { try parser.feed($0) }
            offset = end
        }
        try parser.finish()
        return events
    }

    /// `events` with adjacent text of one kind joined: borrowed text comes in libxml2's pieces,
    /// `XMLEventParser`'s in runs (cut at ``XMLEvent/maximumTextBytes``).
    static func joiningText(_ events: [XMLEvent]) -> [XMLEvent] {
        var joined: [XMLEvent] = []
        for event in events {
            switch (joined.last, event) {
            case (.characters(let previous)?, .characters(let text)): joined[joined.count - 1] = .characters(previous + text)
            case (.cdata(let previous)?, .cdata(let text)): joined[joined.count - 1] = .cdata(previous + text)
            default: joined.append(event)
            }
        }
        return joined
    }

    /// A generated feed of about `bytes` bytes: namespaces, attributes with entity and character
    /// references, text with references and non-ASCII, CDATA, comments and processing instructions.
    static func largeDocument(bytes: Int) -> [UInt8] {
        var xml = #"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:m="urn:m" xml:lang="en">"# + "\n"
        var index = 0
        while xml.utf8.count < bytes {
            xml += """
                <entry id="\(index)" m:rating="\(index % 5)" note="a &amp; b &lt; c &#38; d"><title>Entry \(index) &amp; friends é€𝄞</title>\
                <m:thumbnail url="https://example.com/\(index).png?a=1&amp;b=2"/><!-- entry \(index) -->\
                <summary><![CDATA[<p>Summary \(index)</p>]]><![CDATA[ & more]]></summary><?render \(index)?>\
                <plain xmlns="" k='\(index)'>\(String(repeating: "text ", count: index % 7))</plain></entry>

                """
            index += 1
        }
        return Array((xml + "</feed>\n").utf8)
    }

    @Test("borrowed events, copied, are XMLEventParser's events (text joined): the feed, whole and in chunks",
          arguments: [0, 1, 2, 3, 7, 64, 4096, 1 << 16])
    func sameEvents(chunk: Int) throws {
        let bytes = Array(XMLTreeTests.feed.utf8)
        let expected = Self.joiningText(try XMLEventParserTests.events(XMLTreeTests.feed))
        let borrowed = chunk == 0 ? try Self.events(bytes) : try Self.events(bytes, chunk: chunk)
        #expect(Self.joiningText(borrowed) == expected)
    }

    @Test("borrowed events of a generated 2 MB document equal XMLEventParser's, whole and in chunks",
          arguments: [0, 1000, 4093, 1 << 16, 1 << 20])
    func largeDocument(chunk: Int) throws {
        let bytes = Self.largeDocument(bytes: 2 << 20)
        let expected = Self.joiningText(try XMLEventParserTests.events(bytes, chunk: 1 << 16))
        let borrowed = chunk == 0 ? try Self.events(bytes) : try Self.events(bytes, chunk: chunk)
        #expect(borrowed.count >= expected.count)
        #expect(Self.joiningText(borrowed) == expected)
    }

    @Test("views compare with strings without copying; attributes and namespaces read in place")
    func views() throws {
        var entries = 0
        var ids: [String] = []
        var ratings: [String] = []
        var declared: [String] = []
        var thumbnails = 0
        var comments = 0
        try XMLBorrowedEventParser.parse(Data(XMLTreeTests.feed.utf8)) { event in
            switch event {
            case .startElement(let name, let attributes, let namespaces):
                if name.localName == "feed" {
                    #expect(name.namespaceURI.map { $0 == "http://www.w3.org/2005/Atom" } == true)
                    #expect(name.prefix?.string == nil)
                    declared = namespaces.map { ($0.prefix?.string ?? "") + "=" + $0.uri.string }
                    #expect(attributes.value(of: "lang", namespaceURI: "http://www.w3.org/XML/1998/namespace")?.string == "en")
                }
                if name.localName == "entry" {
                    entries += 1
                    ids.append(attributes.value(of: "id")?.string ?? "-")
                    if let rating = attributes.value(of: "rating", namespaceURI: "http://search.yahoo.com/mrss/") { ratings.append(rating.string) }
                    #expect(attributes.value(of: "rating", namespaceURI: "urn:other")?.string == nil)
                }
                if name.localName == "thumbnail", let prefix = name.prefix, prefix == "media" { thumbnails += 1 }
                #expect(name.localName != "nothing")
            case .comment(let text):
                comments += 1
                #expect(text == " before the root " || text == " after the root ")
            default:
                break
            }
        }
        #expect(entries == 2 && ids == ["1", "2"] && ratings == ["adult"])
        #expect(declared == ["=http://www.w3.org/2005/Atom", "media=http://search.yahoo.com/mrss/"])
        #expect(thumbnails == 1 && comments == 2)
    }

    @Test("malformed documents are xml.malformed with XMLEventParser's line and column", arguments: XMLSafetyTests.malformed)
    func malformed(case: MalformedCase) throws {
        let bytes = `case`.label == "invalid UTF-8" ? Array("<a>".utf8) + [0x80] + Array("</a>".utf8) : Array(`case`.xml.utf8)
        for chunk in [1, 1 << 16] {
            let error = #expect(throws: SluiceError.self) { try Self.events(bytes, chunk: chunk) }
            #expect(error?.code == .xmlMalformed, "chunk \(chunk)")
            #expect(error?.xmlDiagnostic?.line == `case`.line, "chunk \(chunk)")
            let strings = #expect(throws: SluiceError.self) { try XMLEventParserTests.events(bytes, chunk: chunk) }
            #expect(error?.xmlDiagnostic == strings?.xmlDiagnostic, "chunk \(chunk)")
        }
        let whole = #expect(throws: SluiceError.self) { try Self.events(bytes) }
        #expect(whole?.code == .xmlMalformed)
        #expect(whole?.xmlDiagnostic?.line == `case`.line)
        #expect(whole?.xmlDiagnostic?.column == `case`.column)
    }

    @Test("entity declarations are refused: billion laughs, XXE, parameter entities", arguments: XMLSafetyTests.attacks.map(\.0))
    func refused(label: String) throws {
        let xml = try #require(XMLSafetyTests.attacks.first { $0.0 == label }?.1)
        let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? "root:x:0:0"
        let marker = String(passwd.prefix(while: { $0 != "\n" }))
        var seen: [XMLEvent] = []
        let whole = #expect(throws: SluiceError.self) {
            try XMLBorrowedEventParser.parse(Data(xml.utf8)) { seen.append($0.event) }
        }
        #expect(whole?.code == .xmlEntityRefused)
        #expect(whole?.xmlDiagnostic != nil)
        let chunked = #expect(throws: SluiceError.self) { try Self.events(Array(xml.utf8), chunk: 7) }
        #expect(chunked?.code == .xmlEntityRefused)
        // Refused before anything was expanded: the text seen before the parse stopped is no more than the
        // document holds (an expansion would be far more), whatever the machine's speed.
        let textSeen = seen.reduce(0) { total, event in
            switch event {
            case .characters(let text), .cdata(let text): return total + text.utf8.count
            default: return total
            }
        }
        #expect(textSeen <= xml.utf8.count, "\(textSeen) bytes of text from a document of \(xml.utf8.count)")
        for text in [whole?.description ?? "", chunked?.description ?? "", "\(seen)"] {
            #expect(!text.contains(marker))
        }
    }

    @Test("deeper than 256 levels is malformed, whole and in chunks")
    func depth() throws {
        let deep = Array((String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)).utf8)
        #expect((#expect(throws: SluiceError.self) { try Self.events(deep) })?.code == .xmlMalformed)
        let streamed = #expect(throws: SluiceError.self) { try Self.events(deep, chunk: 100) }
        #expect(streamed?.code == .xmlMalformed)
        #expect(streamed?.xmlDiagnostic?.line == 1)
        let fine = Array((String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)).utf8)
        #expect(try Self.events(fine).count == 400)
    }

    @Test("a handler that throws stops the parse with its error; no event follows")
    func handlerError() throws {
        var seen = 0
        let error = #expect(throws: SluiceError.self) {
            try XMLBorrowedEventParser.parse(Data("<a><b/><c/><d/></a>".utf8)) { (event) throws(SluiceError) in
                seen += 1
                if case .startElement(let name, _, _) = event, name.localName == "c" {
                    throw SluiceError(.pluginFailed, "stop at c")
                }
            }
        }
        #expect(error?.message == "stop at c")
        #expect(seen == 4)  // a, b, /b, c
    }

    @Test("borrowed events from an async sequence of chunks")
    func asyncChunks() async throws {
        let bytes = Array(XMLTreeTests.feed.utf8)
        let chunks = XMLEventParserTests.chunks(bytes, size: 5)
        var events: [XMLEvent] = []
        try await XMLBorrowedEventParser.parse(chunks) { events.append($0.event) }
        #expect(Self.joiningText(events) == Self.joiningText(try XMLEventParserTests.events(XMLTreeTests.feed)))
    }
}
