import Foundation
import Sluice

// Samples of docs/xml.md and docs/gzip.md, compiled (not run: they talk to example hosts).
enum XMLSamples {
    static func tree(session: SessionManager, request: HTTPRequest) async throws -> [String]? {
        let registry = SerializerRegistry.bundled()          // holds XMLPlugin: application/xml, text/xml, */*+xml
        let response = try await session.data(for: request)
        let tree = try XMLResponseSerializer().serialize(request: request, response: response.response, body: response.data)
        let titles = try tree?.xpath("//a:entry/a:title", namespaces: ["a": "http://www.w3.org/2005/Atom"]).strings
        _ = registry
        return titles
    }

    static func events(session: SessionManager, request: HTTPRequest) async throws {
        let (body, response) = try await session.bytes(for: request)
        try XMLResponseSerializer().validation.validate(request: request, response: response, body: nil)
        try await XMLEventParser.parse(body) { event in
            if case .startElement(let name, let attributes, _) = event { print(name.localName, attributes) }
        }
    }

    static func borrowedEvents(data: Data) throws -> [String] {
        var links: [String] = []
        try XMLBorrowedEventParser.parse(data) { event in
            guard case .startElement(let name, let attributes, _) = event, name.localName == "link" else { return }
            if let href = attributes.value(of: "href") { links.append(href.string) }  // copy what you keep
        }
        return links
    }

    static func errors() {
        do { _ = try XMLTree(parsing: Data("<a><b></a>".utf8)) } catch {
            print(error.code, error.xmlDiagnostic!.line, error.xmlDiagnostic!.column)   // xml.malformed 1 11
        }
    }
}

enum GzipSamples {
    static func codings() async throws {
        var configuration = SessionConfiguration()
        configuration.registry = SerializerRegistry.bundled()
        configuration.contentCodingLimits = ContentCodingLimits(maximumOutputBytes: 256 << 20, maximumRatio: 200)
        let session = SessionManager(configuration: configuration)

        var upload = HTTPRequest(url: URL(string: "https://example.com/logs")!, method: .post)
        upload.contentEncoding = "gzip"
        let response = try await session.upload(for: upload, from: .file(path: "/var/log/app.log"))
        print(response.response.statusCode)
    }
}
