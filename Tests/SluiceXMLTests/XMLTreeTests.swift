import Foundation
import SluiceCore
import SluiceXML
import Testing

@Suite("XML tree and XPath")
struct XMLTreeTests {
    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- before the root -->
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:lang="en">
          <title type="text">Sluice &amp; friends &#x263A;</title>
          <entry id="1" media:rating="adult"><title>First</title><summary><![CDATA[<b>bold</b> & raw]]></summary></entry>
          <entry id="2"><title>Second</title><?render fast?><media:thumbnail url="a.png"/></entry>
          <plain xmlns="">no namespace</plain>
        </feed>
        <!-- after the root -->
        """

    private let atom = "http://www.w3.org/2005/Atom"
    private let media = "http://search.yahoo.com/mrss/"

    @Test("elements, names, namespaces, attributes, text, CDATA, comments and processing instructions")
    func tree() throws {
        let tree = try XMLTree(parsing: Data(Self.feed.utf8))
        #expect(tree.version == "1.0")
        #expect(tree.encoding == "UTF-8")
        #expect(tree.nodes.count == 3)
        #expect(tree.nodes.first == .comment(" before the root "))
        #expect(tree.nodes.last == .comment(" after the root "))

        let root = tree.root
        #expect(root.name == XMLName("feed", namespaceURI: atom))
        #expect(root.namespaces == [XMLNamespace(prefix: nil, uri: atom), XMLNamespace(prefix: "media", uri: media)])
        #expect(root.attributes == [
            XMLAttribute(name: XMLName("lang", prefix: "xml", namespaceURI: "http://www.w3.org/XML/1998/namespace"), value: "en"),
        ])
        #expect(root.attribute("lang") == "en")

        let title = try #require(root.firstElement(named: "title", namespace: atom))
        #expect(title.text == "Sluice & friends \u{263A}")
        #expect(title.attribute("type") == "text")

        let entries = root.elements(named: "entry")
        #expect(entries.count == 2)
        #expect(entries[0].attribute("id") == "1")
        #expect(entries[0].attribute("rating", namespace: media) == "adult")
        #expect(entries[0].attributes[1].name == XMLName("rating", prefix: "media", namespaceURI: media))
        let summary = try #require(entries[0].firstElement(named: "summary"))
        #expect(summary.children == [.cdata("<b>bold</b> & raw")])
        #expect(entries[1].children[1] == .processingInstruction(target: "render", data: "fast"))
        let thumbnail = try #require(entries[1].firstElement(named: "thumbnail", namespace: media))
        #expect(thumbnail.name.qualifiedName == "media:thumbnail")
        #expect(thumbnail.name.description == "{\(media)}media:thumbnail")

        let plain = try #require(root.firstElement(named: "plain"))
        #expect(plain.name.namespaceURI == nil)
        #expect(plain.namespaces == [XMLNamespace(prefix: nil, uri: "")])
        #expect(root.firstElement(named: "plain", namespace: atom) == nil)
    }

    @Test("XPath: node sets in document order, attributes, text, scalars, namespaces")
    func xpath() throws {
        let tree = try XMLTree(parsing: Data(Self.feed.utf8))
        let ns = ["a": atom, "m": media]
        let titles = try tree.xpath("//a:entry/a:title", namespaces: ns)
        #expect(titles.strings == ["First", "Second"])
        #expect(titles.elements.map(\.name.localName) == ["title", "title"])
        let second = try tree.xpath("//a:entry[@id='2']", namespaces: ns).elements
        #expect(second.count == 1)
        #expect(second.first?.firstElement(named: "title")?.text == "Second")
        #expect(try tree.xpath("//a:entry/@id", namespaces: ns) == .nodes([
            .attribute(XMLAttribute(name: XMLName("id"), value: "1")), .attribute(XMLAttribute(name: XMLName("id"), value: "2")),
        ]))
        #expect(try tree.xpath("//m:thumbnail/@url", namespaces: ns).strings == ["a.png"])
        #expect(try tree.xpath("count(//a:entry)", namespaces: ns) == .number(2))
        #expect(try tree.xpath("count(//a:entry)", namespaces: ns).strings == ["2"])
        #expect(try tree.xpath("boolean(//a:entry[@id='3'])", namespaces: ns) == .boolean(false))
        #expect(try tree.xpath("string(//a:summary)", namespaces: ns) == .string("<b>bold</b> & raw"))
        #expect(try tree.xpath("//a:summary/text()", namespaces: ns) == .nodes([.text("<b>bold</b> & raw")]))
        #expect(try tree.xpath("//comment()").strings == [" before the root ", " after the root "])
        #expect(try tree.xpath("//processing-instruction('render')") == .nodes([.processingInstruction(target: "render", data: "fast")]))
        #expect(try tree.xpath("/").elements.isEmpty)
        #expect(try tree.xpath("/") == .nodes([.document(root: tree.root)]))
        #expect(try tree.xpath("//plain").strings == ["no namespace"])
        // Without a prefix bound, names in the default namespace are not matched (XPath 1.0).
        #expect(try tree.xpath("//entry").elements.isEmpty)
        #expect(try tree.xpath("//a:nothing", namespaces: ns) == .nodes([]))
    }

    @Test("invalid XPath and unbound prefixes are typed errors", arguments: ["//[", "//a:entry", "nosuchfunction(1)", "//entry["])
    func invalidXPath(expression: String) throws {
        let tree = try XMLTree(parsing: Data(Self.feed.utf8))
        let error = #expect(throws: SluiceError.self) { try tree.xpath(expression) }
        #expect(error?.code == .xmlXPathInvalid)
        #expect(error?.library?.library == "libxml2")
    }

    @Test("entity and character references in text and attributes are replaced; &#38; stays literal")
    func references() throws {
        let tree = try XMLTree(parsing: Data(#"<a q="x &amp; y &lt;&#38;#38;&#x41;">&lt;&#65;&amp;amp;</a>"#.utf8))
        #expect(tree.root.attribute("q") == "x & y <&#38;A")
        #expect(tree.root.text == "<A&amp;")
    }

    @Test("a tree encodes (for DecodableResponseSerializer(registry:)) and compares by value")
    func encodable() throws {
        let a = try XMLTree(parsing: Data("<a x='1'><b>t</b></a>".utf8))
        let b = try XMLTree(parsing: Data("<a x=\"1\"><b>t</b></a>".utf8))
        #expect(a == b)
        let json = try JSONEncoder().encode(a)
        #expect(String(decoding: json, as: UTF8.self).contains("\"localName\":\"b\""))
        #expect(try XMLTree(parsing: Data("<a/>".utf8)) != a)
    }

    @Test("a large document: many elements, XPath over all of them")
    func large() throws {
        var xml = "<items>"
        for index in 0..<20_000 { xml += "<item id=\"\(index)\"><name>item \(index)</name></item>" }
        xml += "</items>"
        let tree = try XMLTree(parsing: Data(xml.utf8))
        #expect(tree.root.elements.count == 20_000)
        #expect(try tree.xpath("count(//item)") == .number(20_000))
        #expect(try tree.xpath("//item[@id='12345']/name").strings == ["item 12345"])
        #expect(try tree.xpath("//item[position() > 19998]/@id").strings == ["19998", "19999"])
    }
}
