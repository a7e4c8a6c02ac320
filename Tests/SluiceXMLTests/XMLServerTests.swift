import Foundation
import Sluice
import SluiceTestSupport
import SluiceXML
import Testing

/// XML served by the real servers, through SessionManager and the bundled registry.
@Suite("XML from httpbin and nginx", .tags(.server), .needsServers)
struct XMLServerTests {
    private let atom = ["a": "http://www.w3.org/2005/Atom"]

    /// A session whose registry holds the bundled plugins (gzip among them), and the serializer the
    /// registry picks for the response.
    private func fetch(_ server: ServerEnvironment.Server, _ path: String) async throws -> (DataResponse, XMLTree?) {
        let registry = SerializerRegistry.bundled()
        var configuration = SessionConfiguration()
        configuration.registry = registry
        let result = try await SessionManager(configuration: configuration).data(for: TestEnvironment.request(server, path))
        let type = try #require(result.response.contentType)
        let serializer = try #require(registry.responseSerializer(for: type) as? XMLResponseSerializer, "\(type)")
        return (result, try serializer.serialize(request: nil, response: result.response, body: result.data))
    }

    @Test("httpbin /xml (application/xml) decodes to a tree; XPath over it")
    func httpbin() async throws {
        let (result, tree) = try await fetch(.httpbin, "/xml")
        #expect(result.response.mimeType == "application/xml")
        let slideshow = try #require(tree?.root)
        #expect(slideshow.name.localName == "slideshow")
        #expect(slideshow.attribute("title") == "Sample Slide Show")
        #expect(slideshow.elements(named: "slide").count == 2)
        #expect(try tree?.xpath("//slide/title").strings == ["Wake up to WonderWidgets!", "Overview"])
        #expect(try tree?.xpath("count(//item)") == .number(3))
        #expect(try tree?.xpath("string(//item[1])") == .string("Why WonderWidgets are great"))
    }

    @Test("nginx serves XML as stored and gzip-encoded: the same tree, decoded by the gzip plugin first",
          arguments: ["/plugins/sample.xml", "/encoded/gzip/sample.xml", "/gzipped/plugins/sample.xml"])
    func nginx(path: String) async throws {
        let (result, tree) = try await fetch(.http, path)
        #expect(result.data == (try TestEnvironment.servedFile("plugins/sample.xml")))
        #expect(try tree?.xpath("count(//a:entry)", namespaces: atom) == .number(50))
        #expect(try tree?.xpath("//a:entry[@id='7']/a:summary", namespaces: atom).strings == ["<p>7 &amp; more</p>"])
    }

    @Test("streaming: SessionManager.bytes(for:) chunks into XMLEventParser and XMLTree.parse")
    func streaming() async throws {
        let session = SessionManager()
        let (stream, response) = try await session.bytes(for: TestEnvironment.request(.http, "/plugins/sample.xml"))
        try XMLResponseSerializer().validation.validate(request: nil, response: response, body: nil)
        var titles: [String] = []
        var inTitle = false
        try await XMLEventParser.parse(stream) { event in
            switch event {
            case .startElement(let name, _, _): inTitle = name.localName == "title"
            case .characters(let text) where inTitle: titles.append(text)
            case .endElement: inTitle = false
            default: break
            }
        }
        #expect(titles.count == 51)
        #expect(titles.first == "Sluice & friends")
        let (body, _) = try await session.bytes(for: TestEnvironment.request(.httpbin, "/xml"))
        let tree = try await XMLTree.parse(body)
        #expect(tree.root.attribute("author") == "Yours Truly")
    }

    @Test("the registry answers the XML types with the XML serializer; HTML and JSON are refused by it")
    func registry() async throws {
        let registry = SerializerRegistry.bundled()
        for type in ["application/xml", "text/xml", "application/atom+xml", "image/svg+xml", "application/rss+xml; charset=utf-8"] {
            #expect(registry.responseSerializer(for: MediaType(type)!) is XMLResponseSerializer, "\(type)")
        }
        let html = try await SessionManager().data(for: TestEnvironment.request(.httpbin, "/html"))
        let error = #expect(throws: SluiceError.self) {
            try XMLResponseSerializer().serialize(request: nil, response: html.response, body: html.data)
        }
        #expect(error?.code == .unacceptableContentType)
        let noContent = try await SessionManager().data(for: TestEnvironment.request(.httpbin, "/status/204"))
        #expect(try XMLResponseSerializer().serialize(request: nil, response: noContent.response, body: noContent.data) == nil)
    }
}
