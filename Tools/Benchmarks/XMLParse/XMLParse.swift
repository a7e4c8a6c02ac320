import Foundation
import FoundationXML
import SluiceCore
import SluiceXML

/// `xml-parse [MEGABYTES [ONLY]]`: parses one generated document (default 40 MB: a namespaced feed of entries
/// with attributes, text, entity references and CDATA) with SluiceXML's event parser (in memory, and
/// pushed in 64 KiB chunks), its borrowed event parser (in memory, and pushed in 64 KiB and 1 MiB chunks),
/// SluiceXML's tree, FoundationXML's `XMLParser` (events) and `XMLDocument` (tree), best of three each, and
/// prints a Markdown table with each one's throughput and its ratio to `XMLParser`. With ONLY, runs only
/// the parsers whose label contains it (for profiling one).
/// Tools/Benchmarks/xml.sh runs it in release mode.
@main
struct XMLParse {
    static func main() throws {
        let megabytes = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 40
        let document = makeDocument(bytes: megabytes << 20)
        let expected = try countWithEvents(document)

        let only = CommandLine.arguments.dropFirst(2).first  // run only the parsers whose label contains this
        var rows: [(String, Double, String)] = []
        func measure(_ label: String, _ body: () throws -> Counts) throws {
            if let only, !label.contains(only) { return }
            var best = Double.infinity
            for _ in 0..<3 {
                let started = ContinuousClock.now
                let counts = try body()
                let elapsed = ContinuousClock.now - started
                best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                // Sluice's event parsers must also agree on the text, byte for byte in count.
                let textAgrees = !label.contains("EventParser") || counts.textBytes == expected.textBytes
                guard counts.elements == expected.elements, textAgrees else {
                    throw Mismatch(label: label, counts: counts, expected: expected)
                }
            }
            rows.append((label, best, "\(expected.elements) elements"))
        }
        try measure("Foundation `XMLParser` (namespaces on)") { try countWithFoundation(document, namespaces: true) }
        try measure("Foundation `XMLParser` (namespaces off)") { try countWithFoundation(document, namespaces: false) }
        try measure("SluiceXML `XMLEventParser.parse(_:)` (in memory)") { try countWithEvents(document) }
        try measure("SluiceXML `XMLEventParser` fed 64 KiB chunks") { try countWithChunks(document) }
        try measure("SluiceXML `XMLBorrowedEventParser.parse(_:)` (in memory)") { try countWithBorrowedEvents(document) }
        try measure("SluiceXML `XMLBorrowedEventParser` fed 64 KiB chunks") { try countWithBorrowedChunks(document, size: 64 << 10) }
        try measure("SluiceXML `XMLBorrowedEventParser` fed 1 MiB chunks") { try countWithBorrowedChunks(document, size: 1 << 20) }
        try measure("SluiceXML `XMLTree(parsing:)`") { try countWithTree(document) }
        try measure("Foundation `XMLDocument(data:)` (tree)") { try countWithFoundationDocument(document) }

        let baseline = rows.first?.1 ?? 1
        print("Document: \(document.count / 1_000_000) MB, \(expected.elements) elements, \(expected.textBytes / 1_000_000) MB of text\n")
        print("| parser | seconds (best of 3) | MB/s | ÷ XMLParser (namespaces on) |")
        print("|---|---|---|---|")
        for (label, seconds, _) in rows {
            let rate = Double(document.count) / seconds / 1e6
            print("| \(label) | \(String(format: "%.2f", seconds)) | \(String(format: "%.0f", rate)) | \(String(format: "%.2f", baseline / seconds))× |")
        }
    }

    struct Counts {
        var elements = 0
        var textBytes = 0
    }

    struct Mismatch: Error, CustomStringConvertible {
        let label: String
        let counts: Counts
        let expected: Counts
        var description: String {
            "\(label) counted \(counts.elements) elements and \(counts.textBytes) text bytes, expected \(expected.elements) and \(expected.textBytes)"
        }
    }

    static func countWithEvents(_ document: Data) throws -> Counts {
        var counts = Counts()
        try XMLEventParser.parse(document) { event in
            switch event {
            case .startElement: counts.elements += 1
            case .characters(let text), .cdata(let text): counts.textBytes += text.utf8.count
            default: break
            }
        }
        return counts
    }

    static func countWithChunks(_ document: Data) throws -> Counts {
        var counts = Counts()
        let parser = try XMLEventParser { event in
            switch event {
            case .startElement: counts.elements += 1
            case .characters(let text), .cdata(let text): counts.textBytes += text.utf8.count
            default: break
            }
        }
        try document.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 65_536, bytes.count)
                try parser.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
            }
        }
        try parser.finish()
        return counts
    }

    static func countWithBorrowedEvents(_ document: Data) throws -> Counts {
        var counts = Counts()
        try XMLBorrowedEventParser.parse(document) { event in
            switch event {
            case .startElement: counts.elements += 1
            case .characters(let text), .cdata(let text): counts.textBytes += text.count
            default: break
            }
        }
        return counts
    }

    static func countWithBorrowedChunks(_ document: Data, size: Int) throws -> Counts {
        var counts = Counts()
        let parser = try XMLBorrowedEventParser { event in
            switch event {
            case .startElement: counts.elements += 1
            case .characters(let text), .cdata(let text): counts.textBytes += text.count
            default: break
            }
        }
        try document.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + size, bytes.count)
                try parser.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
            }
        }
        try parser.finish()
        return counts
    }

    static func countWithTree(_ document: Data) throws -> Counts {
        let tree = try XMLTree(parsing: document)
        var counts = Counts()
        func walk(_ element: XMLTree.Element) {
            counts.elements += 1
            for child in element.children {
                switch child {
                case .element(let element): walk(element)
                case .text(let text), .cdata(let text): counts.textBytes += text.utf8.count
                default: break
                }
            }
        }
        walk(tree.root)
        return counts
    }

    final class Counter: NSObject, XMLParserDelegate {
        var counts = Counts()
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            counts.elements += 1
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { counts.textBytes += string.utf8.count }
        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { counts.textBytes += CDATABlock.count }
    }

    struct FoundationFailed: Error {
        let error: (any Error)?
    }

    static func countWithFoundation(_ document: Data, namespaces: Bool) throws -> Counts {
        // XMLParser(data:) hands libxml2 the whole document at once and fails past 10 MB (libxml2's
        // lookup limit); the stream initializer feeds it in chunks.
        let parser = document.count > 8 << 20 ? XMLParser(stream: InputStream(data: document)) : XMLParser(data: document)
        parser.shouldProcessNamespaces = namespaces
        let counter = Counter()
        parser.delegate = counter
        guard parser.parse() else { throw FoundationFailed(error: parser.parserError) }
        return counter.counts
    }

    static func countWithFoundationDocument(_ document: Data) throws -> Counts {
        let tree = try XMLDocument(data: document, options: [.nodePreserveCDATA])
        var counts = Counts()
        func walk(_ node: XMLNode) {
            switch node.kind {
            case .element: counts.elements += 1
            case .text: counts.textBytes += node.stringValue?.utf8.count ?? 0
            default: break
            }
            for child in node.children ?? [] { walk(child) }
        }
        if let root = tree.rootElement() { walk(root) }
        return counts
    }

    /// A deterministic Atom-like feed of about `bytes` bytes.
    static func makeDocument(bytes: Int) -> Data {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:lang="en">"# + "\n"
        var index = 0
        while xml.utf8.count < bytes {
            xml += """
                  <entry id="\(index)" media:rating="\(index % 5)">\
                <title>Entry number \(index) &amp; friends</title>\
                <link rel="alternate" href="https://example.com/entries/\(index)"/>\
                <updated>2026-11-21T12:\(index % 60):00Z</updated>\
                <media:thumbnail url="https://example.com/\(index).png" width="120" height="90"/>\
                <summary type="html"><![CDATA[<p>Summary of entry \(index), with <b>markup</b>.</p>]]></summary>\
                <content>Sluice parses XML with libxml2 and hands the events to Swift, entry \(index).</content>\
                </entry>

                """
            index += 1
        }
        xml += "</feed>\n"
        return Data(xml.utf8)
    }
}
