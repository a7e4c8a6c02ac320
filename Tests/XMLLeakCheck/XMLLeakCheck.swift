import CLibXML2
import Foundation
import SluiceCore
import SluiceXML

/// `sluice-xml-leakcheck [ROUNDS]`: counts libxml2's allocations through its debug allocator while
/// SluiceXML parses (trees, events in memory and in chunks, XPath, malformed input, refused entities,
/// a handler that stops the parse) and prints `leaked: N blocks, M bytes`, exiting 1 when N is not 0.
/// Run by SluiceXMLTests; its own process, because libxml2's allocator can only be chosen before
/// libxml2 allocates anything.
///
/// `sluice-xml-leakcheck quiet` runs ``QuietProbe`` instead (nothing libxml2 says may reach stderr).
@main
struct XMLLeakCheck {
    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "quiet" {
            await QuietProbe.main()
            return
        }
        // Before any libxml2 call: every block libxml2 allocates from here on is counted.
        xmlMemSetup(xmlMemFree, xmlMemMalloc, xmlMemRealloc, xmlMemoryStrdup)
        let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100
        try round()  // libxml2's global tables are made once, at the first parse
        let (blocks, bytes) = (xmlMemBlocks(), xmlMemUsed())
        for _ in 0..<rounds { try round() }
        let leakedBlocks = xmlMemBlocks() - blocks
        let leakedBytes = xmlMemUsed() - bytes
        print("rounds: \(rounds); libxml2 blocks in use after the first round: \(blocks)")
        print("leaked: \(leakedBlocks) blocks, \(leakedBytes) bytes")
        exit(leakedBlocks == 0 && leakedBytes == 0 ? 0 : 1)
    }

    static let document = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment --><?pi data?>
        <feed xmlns="urn:feed" xmlns:m="urn:m" xml:lang="en">
          <entry id="1" m:rating="2"><title>One &amp; two</title><summary><![CDATA[<b>raw</b>]]></summary></entry>
          <entry id="2"><title>Two</title><m:thumbnail url="a.png"/></entry>
        </feed>
        """.utf8)

    static let refused = [
        #"<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>"#,
        #"<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>"#,
        #"<!DOCTYPE x [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><x/>"#,
        #"<!DOCTYPE x PUBLIC "-//X//EN" "file:///etc/passwd"><x>&nbsp;</x>"#,
    ]

    static let malformed = ["<a><b></a>", "<a>", "", "<a x=1/>", "<p:a/>", "<a>&nbsp;</a>", String(repeating: "<a>", count: 300)]

    static func round() throws {
        let tree = try XMLTree(parsing: document)
        _ = try tree.xpath("//f:entry/f:title", namespaces: ["f": "urn:feed"])
        _ = try tree.xpath("//@*")
        _ = try tree.xpath("//namespace::*")
        _ = try tree.xpath("count(//*)")
        _ = try? tree.xpath("//[")
        _ = try? tree.xpath("nosuchfunction()")
        _ = try? tree.xpath("//x:entry")
        try XMLEventParser.parse(document) { _ in }
        let parser = try XMLEventParser { _ in }
        for byte in document { try parser.feed(Data([byte])) }
        try parser.finish()
        let abandoned = try XMLEventParser { _ in }  // dropped mid-document
        try abandoned.feed(document.prefix(50))
        _ = try? XMLEventParser.parse(document) { (_) throws(SluiceError) in throw SluiceError(.pluginFailed, "stop") }
        try XMLBorrowedEventParser.parse(document) { _ in }
        let borrowing = try XMLBorrowedEventParser { _ in }
        for byte in document { try borrowing.feed(Data([byte])) }
        try borrowing.finish()
        let abandonedBorrowing = try XMLBorrowedEventParser { _ in }  // dropped mid-document
        try abandonedBorrowing.feed(document.prefix(50))
        _ = try? XMLBorrowedEventParser.parse(document) { (_) throws(SluiceError) in throw SluiceError(.pluginFailed, "stop") }
        for xml in refused + malformed {
            _ = try? XMLTree(parsing: Data(xml.utf8))
            _ = try? XMLEventParser.parse(Data(xml.utf8)) { _ in }
            _ = try? XMLBorrowedEventParser.parse(Data(xml.utf8)) { _ in }
        }
        // Bytes libxml2's encoding converter refuses: its messages are routed to the parse, not printed.
        for data in [QuietProbe.hostile, QuietProbe.hostileAfterRoot] {
            _ = try? XMLTree(parsing: data)
            _ = try? XMLEventParser.parse(data) { _ in }
            let pushed = try XMLEventParser { _ in }
            _ = try? pushed.feed(data)
            _ = try? pushed.finish()
            let borrowed = try XMLBorrowedEventParser { _ in }
            for byte in data { _ = try? borrowed.feed(Data([byte])) }
            _ = try? borrowed.finish()
        }
    }
}
