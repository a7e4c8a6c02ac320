import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceXML
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct MalformedCase: Sendable, CustomTestStringConvertible {
    let label: String
    let xml: String
    let line: Int
    let column: Int
    var testDescription: String { label }
}

@Suite("XML safety and malformed input")
struct XMLSafetyTests {
    /// libxml2 reports the column it had read to when it stopped.
    static let malformed: [MalformedCase] = [
        MalformedCase(label: "mismatched tags <a><b></a>", xml: "<a><b></a>", line: 1, column: 11),
        MalformedCase(label: "unclosed root <a>", xml: "<a>", line: 1, column: 4),
        MalformedCase(label: "truncated document", xml: "<?xml version=\"1.0\"?>\n<root>\n  <item id=\"1\">one</item>\n  <item id=", line: 4, column: 12),
        MalformedCase(label: "empty body", xml: "", line: 1, column: 1),
        MalformedCase(label: "whitespace only", xml: "  \n ", line: 2, column: 2),
        MalformedCase(label: "text outside the root", xml: "<a/>trailing", line: 1, column: 5),
        MalformedCase(label: "two roots", xml: "<a/><b/>", line: 1, column: 5),
        MalformedCase(label: "unquoted attribute", xml: "<a x=1/>", line: 1, column: 6),
        MalformedCase(label: "duplicate attribute", xml: "<a x='1' x='2'/>", line: 1, column: 15),
        MalformedCase(label: "unbound prefix", xml: "<p:a/>", line: 1, column: 5),
        MalformedCase(label: "bare ampersand", xml: "<a>fish & chips</a>", line: 1, column: 10),
        MalformedCase(label: "undeclared entity", xml: "<a>&nbsp;</a>", line: 1, column: 10),
        MalformedCase(label: "invalid UTF-8", xml: "<a>\u{FFFD}</a>", line: 1, column: 4),
        MalformedCase(label: "mismatch on a later line", xml: "<a>\n<b>\n</c>\n</a>", line: 3, column: 5),
    ]

    private func bytes(_ case: MalformedCase) -> [UInt8] {
        // The invalid UTF-8 case replaces U+FFFD by a lone continuation byte.
        `case`.label == "invalid UTF-8" ? Array("<a>".utf8) + [0x80] + Array("</a>".utf8) : Array(`case`.xml.utf8)
    }

    @Test("a comment opened as <!--> or <!---> before or after the root: accepted pushed in any chunks, as whole",
          arguments: ["<!-->x--><a/>", "<a/><!-->x-->", "<!--->x--><a/>", "<?xml version=\"1.0\"?><!-->a< c--><a>t</a><!-- ok -->"])
    func commentOpenersPushed(document: String) throws {
        // Found by Tools/Fuzz (FuzzXML): libxml2 2.9's push parser took "<!-->" for a whole comment when the rest
        // had not arrived, and refused the document (Tools/Fuzz/Findings/XML/push_comment_repro.c).
        let bytes = Array(document.utf8)
        var whole: [XMLEvent] = []
        try XMLEventParser.parse(Data(bytes)) { whole.append($0) }
        for size in 1...bytes.count {
            var pushed: [XMLEvent] = []
            let parser = try XMLEventParser { pushed.append($0) }
            for start in stride(from: 0, to: bytes.count, by: size) {
                try parser.feed(Data(bytes[start..<min(start + size, bytes.count)]))
            }
            try parser.finish()
            #expect(pushed == whole, "chunks of \(size)")
        }
    }

    @Test("line ends in a CDATA section are normalized pushed as whole (CR LF and a lone CR are LF), in any chunks",
          arguments: [1, 2, 3, 7, 64, 4096])
    func lineEndsInCDATA(chunkSize: Int) throws {
        // Found by Tools/Fuzz (FuzzXML): libxml2 2.9's push parser handed CDATA over with its CRs as they
        // stood, where the whole-document parser gives LF (XML 1.0 §2.11).
        let document = Array("<a><![CDATA[one\r\ntwo\rthree\r\r\nfour\n\rfive\r]]>x\r\ny</a>".utf8)
        var whole: [XMLEvent] = []
        try XMLEventParser.parse(Data(document)) { whole.append($0) }
        #expect(whole.contains(.cdata("one\ntwo\nthree\n\nfour\n\nfive\n")), "\(whole)")
        var pushed: [XMLEvent] = []
        let parser = try XMLEventParser { pushed.append($0) }
        var borrowed: [String] = []
        let borrowing = try XMLBorrowedEventParser { event in
            if case .cdata(let text) = event.event { borrowed.append(text) }
        }
        for start in stride(from: 0, to: document.count, by: chunkSize) {
            let chunk = Data(document[start..<min(start + chunkSize, document.count)])
            try parser.feed(chunk)
            try borrowing.feed(chunk)
        }
        try parser.finish()
        try borrowing.finish()
        #expect(pushed == whole)
        #expect(borrowed.joined() == "one\ntwo\nthree\n\nfour\n\nfive\n")
    }

    @Test("an overlong UTF-8 sequence in a CDATA section is xml.malformed whole and pushed, in any chunks",
          arguments: [1, 7, 64, 4096])
    func overlongUTF8InCDATA(chunkSize: Int) throws {
        // Found by Tools/Fuzz (FuzzXML): libxml2's push parser let C1 9C (an overlong "\\") through in
        // CDATA, which its whole-document parser refuses.
        let document = Array(#"<?xml version="1.0" encoding="UTF-8"?><a><![CDATA[x"#.utf8) + [0xC1, 0x9C]
            + Array("]]></a>".utf8)
        let whole = #expect(throws: SluiceError.self) { try XMLEventParser.parse(Data(document)) { _ in } }
        #expect(whole?.code == .xmlMalformed)
        let pushed = #expect(throws: SluiceError.self) {
            let parser = try XMLEventParser { _ in }
            for start in stride(from: 0, to: document.count, by: chunkSize) {
                try parser.feed(Data(document[start..<min(start + chunkSize, document.count)]))
            }
            try parser.finish()
        }
        #expect(pushed?.code == .xmlMalformed)
        // Valid UTF-8 in CDATA still passes, pushed a byte at a time.
        let valid = Array(#"<a><![CDATA[é ✓ 𝄞]]></a>"#.utf8)
        let parser = try XMLEventParser { _ in }
        for byte in valid { try parser.feed(Data([byte])) }
        try parser.finish()
    }

    @Test("a NUL character after the root element is xml.malformed whole as in chunks",
          arguments: [Array("<a></a>\0".utf8), Array("<a/>\0<b/>".utf8), Array("<a/>\n\0\0\0".utf8)])
    func nulAfterRoot(document: [UInt8]) throws {
        // Found by Tools/Fuzz (FuzzXML): the in-memory parse stopped at the NUL and accepted the document,
        // while the push parser refused it.
        let tree = #expect(throws: SluiceError.self) { try XMLTree(parsing: Data(document)) }
        #expect(tree?.code == .xmlMalformed)
        let events = #expect(throws: SluiceError.self) { try XMLEventParser.parse(Data(document)) { _ in } }
        #expect(events?.code == .xmlMalformed)
        let pushed = #expect(throws: SluiceError.self) {
            let parser = try XMLEventParser { _ in }
            try parser.feed(Data(document))
            try parser.finish()
        }
        #expect(pushed?.code == .xmlMalformed)
        // UTF-16 holds NUL bytes in its characters: such a document still parses.
        let utf16: [UInt8] = [0xFE, 0xFF] + "<a>x</a>".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try XMLTree(parsing: Data(utf16)).root.name.localName == "a")
    }

    @Test("malformed documents are xml.malformed with line and column, as a tree", arguments: malformed)
    func malformedTree(case: MalformedCase) {
        let error = #expect(throws: SluiceError.self) { try XMLTree(parsing: Data(bytes(`case`))) }
        #expect(error?.code == .xmlMalformed)
        #expect(error?.xmlDiagnostic?.line == `case`.line)
        #expect(error?.xmlDiagnostic?.column == `case`.column)
        #expect(error?.library?.library == "libxml2")
        #expect(error?.message.contains("line \(`case`.line), column \(`case`.column)") == true)
    }

    @Test("malformed documents are xml.malformed as events too, in 1-byte and whole chunks", arguments: malformed)
    func malformedEvents(case: MalformedCase) throws {
        for chunk in [1, 1 << 16] {
            let error = #expect(throws: SluiceError.self) { try XMLEventParserTests.events(bytes(`case`), chunk: chunk) }
            #expect(error?.code == .xmlMalformed, "chunk \(chunk)")
            #expect(error?.xmlDiagnostic?.line == `case`.line, "chunk \(chunk)")
        }
        let whole = #expect(throws: SluiceError.self) { try XMLEventParser.parse(Data(bytes(`case`))) { _ in } }
        #expect(whole?.code == .xmlMalformed)
    }

    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
          <!ENTITY lol "lol">
          <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
          <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
          <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
          <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
          <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
          <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
          <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <lolz>&lol9;</lolz>
        """

    static let attacks: [(String, String)] = [
        ("billion laughs", billionLaughs),
        ("XXE: SYSTEM file:///etc/passwd", """
            <?xml version="1.0"?>
            <!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
            <foo>&xxe;</foo>
            """),
        ("XXE in an attribute default", """
            <!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> <!ATTLIST foo a CDATA "&xxe;"> ]>
            <foo/>
            """),
        ("parameter entity XXE", """
            <!DOCTYPE foo [ <!ENTITY % remote SYSTEM "file:///etc/passwd"> %remote; ]>
            <foo/>
            """),
        ("network entity", """
            <!DOCTYPE foo [ <!ENTITY net SYSTEM "http://127.0.0.1:9/evil.dtd"> ]>
            <foo>&net;</foo>
            """),
        ("unparsed entity", """
            <!DOCTYPE foo [ <!NOTATION gif SYSTEM "image/gif"> <!ENTITY pic SYSTEM "file:///etc/passwd" NDATA gif> ]>
            <foo/>
            """),
        ("quadratic blowup", "<!DOCTYPE a [ <!ENTITY x \"\(String(repeating: "x", count: 100_000))\"> ]><a>\(String(repeating: "&x;", count: 100_000))</a>"),
        ("undeclared reference with an external DTD", """
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "file:///etc/passwd">
            <html>&nbsp;</html>
            """),
    ]

    @Test("entity declarations and references are refused: billion laughs, XXE, parameter entities", arguments: attacks.map(\.0))
    func refused(label: String) throws {
        let xml = try #require(Self.attacks.first { $0.0 == label }?.1)
        let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? "root:x:0:0"
        let marker = String(passwd.prefix(while: { $0 != "\n" }))
        let treeError = #expect(throws: SluiceError.self) { try XMLTree(parsing: Data(xml.utf8)) }
        #expect(treeError?.code == .xmlEntityRefused)
        #expect(treeError?.xmlDiagnostic != nil)
        // Refused before anything was expanded: the text handed out before the parse stopped is no more than
        // the document holds (an expansion would be far more), whatever the machine's speed.
        var handedOut = 0
        _ = try? XMLEventParser.parse(Data(xml.utf8)) { event in
            switch event {
            case .characters(let text), .cdata(let text): handedOut += text.utf8.count
            default: break
            }
        }
        #expect(handedOut <= xml.utf8.count, "\(handedOut) bytes of text from a document of \(xml.utf8.count)")
        var events: [XMLEvent] = []
        let eventError = #expect(throws: SluiceError.self) {
            try XMLEventParserTests.events(Array(xml.utf8), chunk: 7).forEach { events.append($0) }
        }
        #expect(eventError?.code == .xmlEntityRefused)
        // Nothing from /etc/passwd anywhere: not in events, messages or diagnostics.
        for text in [treeError?.description ?? "", eventError?.description ?? "", "\(events)"] {
            #expect(!text.contains(marker))
        }
    }

    /// The process's resident memory, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("billion laughs is refused with bounded memory")
    func billionLaughsMemory() throws {
        let before = Self.residentBytes()
        for _ in 0..<50 {
            #expect(throws: SluiceError.self) { try XMLTree(parsing: Data(Self.billionLaughs.utf8)) }
        }
        #expect(Self.residentBytes() - before < 64 << 20)
    }

    @Test("a DTD without entity declarations is read; its external subset is never loaded nor its defaults applied")
    func harmlessDTD() throws {
        let xml = """
            <!DOCTYPE note SYSTEM "file:///etc/passwd" [ <!ELEMENT note (#PCDATA)> <!ATTLIST note kind CDATA "memo"> ]>
            <note>&lt;hi&gt;</note>
            """
        let tree = try XMLTree(parsing: Data(xml.utf8))
        #expect(tree.root.text == "<hi>")
        #expect(tree.root.attributes.isEmpty)  // DTD attribute defaults are not applied (no XML_PARSE_DTDATTR)
        var events: [XMLEvent] = []
        try XMLEventParser.parse(Data(xml.utf8)) { events.append($0) }
        #expect(events.first == .startElement(XMLName("note"), attributes: [], namespaces: []))
    }

    @Test("deeper than 256 levels is malformed (libxml2's limit, kept)")
    func depth() throws {
        let deep = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        #expect((#expect(throws: SluiceError.self) { try XMLTree(parsing: Data(deep.utf8)) })?.code == .xmlMalformed)
        // The push parser (chunks) is held to the same limit.
        let streamed = #expect(throws: SluiceError.self) { try XMLEventParserTests.events(Array(deep.utf8), chunk: 100) }
        #expect(streamed?.code == .xmlMalformed)
        #expect(streamed?.xmlDiagnostic?.line == 1)
        let fine = String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)
        #expect(try XMLTree(parsing: Data(fine.utf8)).root.name.localName == "a")
    }

    @Test("an element past the depth limit with attributes: malformed, its attributes never read (whole and in chunks)")
    func depthWithAttributes() throws {
        // Stopping the parse at the element that goes too deep frees libxml2's input, where that element's
        // attribute values point: reading them afterwards was a use after free (found by FuzzDecodable;
        // AddressSanitizer, as make sanitize runs this test, reports it).
        let deep = String(repeating: #"<a x="1" y="two &amp; three">"#, count: 300) + String(repeating: "</a>", count: 300)
        #expect((#expect(throws: SluiceError.self) { try XMLTree(parsing: Data(deep.utf8)) })?.code == .xmlMalformed)
        for chunk in [1, 7, 4096] {
            let streamed = #expect(throws: SluiceError.self) { try XMLEventParserTests.events(Array(deep.utf8), chunk: chunk) }
            #expect(streamed?.code == .xmlMalformed, "chunks of \(chunk)")
        }
    }

    @Test("many parses, trees and XPath queries at once on many threads")
    func concurrency() async throws {
        let shared = try XMLTree(parsing: Data(XMLTreeTests.feed.utf8))
        let ns = ["a": "http://www.w3.org/2005/Atom"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let xml = "<r n='\(index)'>" + String(repeating: "<i>\(index)</i>", count: 500) + "</r>"
                    let tree = try XMLTree(parsing: Data(xml.utf8))
                    #expect(try tree.xpath("count(//i)") == .number(500))
                    #expect(tree.root.attribute("n") == "\(index)")
                    var count = 0
                    try XMLEventParser.parse(Data(xml.utf8)) { if case .startElement = $0 { count += 1 } }
                    #expect(count == 501)
                    #expect(try shared.xpath("//a:entry/a:title", namespaces: ns).strings == ["First", "Second"])
                    let bad = #expect(throws: SluiceError.self) { try XMLTree(parsing: Data("<a><b></a>".utf8)) }
                    #expect(bad?.xmlDiagnostic?.column == 11)
                    #expect((#expect(throws: SluiceError.self) { try XMLTree(parsing: Data(Self.billionLaughs.utf8)) })?.code == .xmlEntityRefused)
                }
            }
            try await group.waitForAll()
        }
    }

}

@Suite("libxml2 allocations")
struct XMLLeakTests {
    @Test("every block libxml2 allocates is freed (sluice-xml-leakcheck: libxml2's debug allocator, 100 rounds)")
    func libxml2Allocations() async throws {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sluice-xml-leakcheck")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build it with swift build --build-tests")
        let leakcheck = try await ChildProcess.run(executable: tool.path, arguments: ["100"])
        let text = leakcheck.output
        #expect(leakcheck.status == 0, "\(text)")
        #expect(text.contains("leaked: 0 blocks, 0 bytes"), "\(text)")
    }
}
