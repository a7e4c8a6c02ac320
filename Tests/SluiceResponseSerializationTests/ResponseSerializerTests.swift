import Foundation
@testable import SluiceCore
import SluiceResponseSerialization
import SluiceTestSupport
import SluiceTransport
import Testing

@Suite("Response serializers", .serialized)
struct ResponseSerializerTests {
    private func session() throws -> SessionManager { SessionManager() }

    private func fetch(_ path: String) async throws -> DataResponse {
        let base = try TestEnvironment.url(for: .httpbin)
        return try await session().data(for: HTTPRequest(url: URL(string: base.absoluteString + path)!))
    }

    @Test("a declared charset that cannot decode the body is a typed error carrying the body; no charset falls back to Latin-1")
    func stringCharsets() throws {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])
        func response(_ contentType: String) throws -> HTTPResponse {
            var headers = HTTPHeaders()
            try headers.set(name: "Content-Type", value: contentType)
            return HTTPResponse(statusCode: 200, headers: headers)
        }
        let serializer = StringResponseSerializer()
        let error = #expect(throws: SluiceError.self) {
            try serializer.serialize(request: nil, response: response("text/plain; charset=utf-8"), body: latin1)
        }
        #expect(error?.code == .stringDecodingFailed)
        #expect(error?.body == latin1)
        #expect(error?.response?.statusCode == 200)
        #expect(error?.message.contains("utf-8") == true)
        let unknown = #expect(throws: SluiceError.self) {
            try serializer.serialize(request: nil, response: response("text/plain; charset=klingon"), body: Data("x".utf8))
        }
        #expect(unknown?.code == .stringDecodingFailed)
        #expect(try serializer.serialize(request: nil, response: response("text/plain"), body: latin1) == "café")
        #expect(try serializer.serialize(request: nil, response: response("text/plain; charset=ISO-8859-1"), body: latin1) == "café")
    }

    @Test("JSON nested past 128 levels is refused before decoding, at once; 128 levels and brackets inside strings decode")
    func nestingBound() throws {
        let response = HTTPResponse(statusCode: 200, headers: try HTTPHeaders(validating: ["Content-Type": "application/json"]))
        func nested(_ depth: Int) -> Data {
            Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        let error = #expect(throws: SluiceError.self) {
            try JSONResponseSerializer().serialize(request: nil, response: response, body: nested(100_000))
        }
        #expect(error?.code == .invalidJSON)
        // Refused by the depth scan, so never decoded...
        #expect(error?.message.contains("deeper than 128") == true)
        // ...and at once: the scan stops one level past the bound, not at the end of the 100,000.
        #expect(Parameters.jsonNestingDepth(nested(100_000), stoppingAbove: Parameters.maximumJSONDepth) == 129)

        var deepest = try #require(try JSONResponseSerializer().serialize(request: nil, response: response, body: nested(128)))
        var levels = 0
        while case .array(let values) = deepest, let first = values.first {
            deepest = first
            levels += 1
        }
        #expect(levels == 127)
        let quoted = Data(#"{"a": "[[[[{{{{\"]]]", "b": [[1]]}"#.utf8)
        let value = try JSONResponseSerializer().serialize(request: nil, response: response, body: quoted)
        #expect(value?["a"] == .string(#"[[[[{{{{"]]]"#))
        #expect(Parameters.jsonNestingDepth(quoted, stoppingAbove: 128) == 3)
    }

    @Test("httpbin /json decodes to a tree and to a Decodable type", .tags(.server), .needsServers)
    func json() async throws {
        let response = try await fetch("/json")
        let tree = try JSONResponseSerializer().serialize(request: nil, response: response.response, body: response.data)
        #expect(tree?["slideshow"]?["author"] == "Yours Truly")

        struct Document: Decodable, Sendable {
            struct Slideshow: Decodable, Sendable { let title: String; let slides: [Slide] }
            struct Slide: Decodable, Sendable { let title: String }
            let slideshow: Slideshow
        }
        let document = try DecodableResponseSerializer<Document>().serialize(
            request: nil, response: response.response, body: response.data)
        #expect(document.slideshow.title == "Sample Slide Show")
        #expect(document.slideshow.slides.count == 2)
    }

    @Test("/html is refused by the JSON serializer, the body readable from the error", .tags(.server), .needsServers)
    func htmlRefused() async throws {
        let response = try await fetch("/html")
        let error = #expect(throws: SluiceError.self) {
            try JSONResponseSerializer().serialize(request: nil, response: response.response, body: response.data)
        }
        #expect(error?.code == .unacceptableContentType)
        #expect(error?.message == "Request failed: unacceptable content-type: text/html for \(try #require(response.response.url))")
        let body = String(decoding: error?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("Herman Melville"))
        #expect(error?.response?.statusCode == 200)
    }

    @Test("/status/404 fails with the status and its reason phrase", .tags(.server), .needsServers)
    func notFound() async throws {
        let response = try await fetch("/status/404")
        let error = #expect(throws: SluiceError.self) {
            try HTTPResponseSerializer().serialize(request: nil, response: response.response, body: response.data)
        }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.message == "Request failed: not found (404) for \(try #require(response.response.url))")
        let teapot = try await fetch("/status/418")
        let teapotError = #expect(throws: SluiceError.self) {
            try StringResponseSerializer().serialize(request: nil, response: teapot.response, body: teapot.data)
        }
        let teapotBody = String(decoding: teapotError?.body ?? Data(), as: UTF8.self)
        #expect(teapotBody.contains("teapot"))
    }

    @Test("/image/png and /image/jpeg: format and dimensions from the header", .tags(.server), .needsServers, arguments: [
        ("/image/png", ImageInfo.Format.png, 100, 100), ("/image/jpeg", .jpeg, 239, 178), ("/image/webp", .webp, 274, 367),
    ])
    func images(path: String, format: ImageInfo.Format, width: Int, height: Int) async throws {
        let response = try await fetch(path)
        let image = try #require(try ImageResponseSerializer().serialize(request: nil, response: response.response, body: response.data))
        #expect(image.format == format)
        #expect(image.width == width)
        #expect(image.height == height)
    }

    @Test("a body whose signature does not match its Content-Type is an error", .tags(.server), .needsServers)
    func mismatchedImage() async throws {
        let png = try await fetch("/image/png")
        let lying = HTTPResponse(statusCode: 200, headers: ["Content-Type": "image/jpeg"])
        let error = #expect(throws: SluiceError.self) {
            try ImageResponseSerializer().serialize(request: nil, response: lying, body: png.data)
        }
        #expect(error?.code == .invalidImage)
    }

    @Test("compound of image and JSON: the member that succeeds wins, else the last error", .tags(.server), .needsServers)
    func compound() async throws {
        let compound = CompoundResponseSerializer([ImageResponseSerializer(), JSONResponseSerializer()])
        let json = try await fetch("/json")
        #expect(try compound.serialize(request: nil, response: json.response, body: json.data) is Parameters)
        let png = try await fetch("/image/png")
        #expect((try compound.serialize(request: nil, response: png.response, body: png.data) as? ImageInfo)?.format == .png)
        let html = try await fetch("/html")
        let error = #expect(throws: SluiceError.self) {
            try compound.serialize(request: nil, response: html.response, body: html.data)
        }
        #expect(error?.code == .unacceptableContentType)
    }

    @Test("Decodable: empty bodies give Empty, or an explicit empty-response error")
    func emptyBodies() throws {
        let noContent = HTTPResponse(statusCode: 204)
        #expect(try DecodableResponseSerializer<Empty>().serialize(request: nil, response: noContent, body: nil) == Empty.value)
        let error = #expect(throws: SluiceError.self) {
            try DecodableResponseSerializer<[String]>().serialize(request: nil, response: noContent, body: nil)
        }
        #expect(error?.code == .emptyResponse)
        let wrongShape = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"])
        let decoding = #expect(throws: SluiceError.self) {
            try DecodableResponseSerializer<[String]>().serialize(request: nil, response: wrongShape, body: Data("{}".utf8))
        }
        #expect(decoding?.code == .decodingFailed)
        #expect(decoding?.underlying is ForeignError)
    }

    @Test("strings: the Content-Type charset, else UTF-8, else Latin-1")
    func strings() throws {
        let latin1 = HTTPResponse(statusCode: 200, headers: ["Content-Type": "text/plain; charset=iso-8859-1"])
        #expect(try StringResponseSerializer().serialize(request: nil, response: latin1, body: Data([0x63, 0x61, 0x66, 0xE9])) == "café")
        let unlabelled = HTTPResponse(statusCode: 200)
        #expect(try StringResponseSerializer().serialize(request: nil, response: unlabelled, body: Data("é👍".utf8)) == "é👍")
        #expect(try StringResponseSerializer().serialize(request: nil, response: unlabelled, body: Data([0xE9, 0xFF])) == "éÿ")
    }

    @Test("serializers are values usable from many threads at once")
    func concurrentUse() async throws {
        let serializer = JSONResponseSerializer(removesKeysWithNullValues: true)
        let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"])
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<500 {
                group.addTask {
                    let body = Data(#"{"i":\#(index),"n":null}"#.utf8)
                    return (try? serializer.serialize(request: nil, response: response, body: body)) == ["i": .integer(index)]
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
    }

    @Test("a refused status or type names the method and URL in the message, without the URL's credentials")
    func messageNamesTheRequest() throws {
        let request = HTTPRequest(url: "https://alice:s3cret@api.example.com/v1/items?page=2", method: .post)
        let notFound = HTTPResponse(statusCode: 404, url: request.url)
        let statusError = #expect(throws: SluiceError.self) {
            try HTTPResponseSerializer().validate(request: request, response: notFound, body: nil)
        }
        #expect(statusError?.message == "Request failed: not found (404) for POST https://api.example.com/v1/items?page=2")
        let html = HTTPResponse(
            statusCode: 200, headers: try HTTPHeaders(validating: ["Content-Type": "text/html"]), url: request.url)
        let typeError = #expect(throws: SluiceError.self) {
            try JSONResponseSerializer().serialize(request: request, response: html, body: Data("<p>".utf8))
        }
        #expect(typeError?.message == "Request failed: unacceptable content-type: text/html for POST https://api.example.com/v1/items?page=2")
        for error in [statusError, typeError].compactMap({ $0 }) {
            #expect(!"\(error)".contains("s3cret"))
            #expect(!error.debugDescription.contains("s3cret"))
            #expect(!error.localizedDescription.contains("s3cret"))
        }
        // Without a request, the response's URL names it.
        let alone = #expect(throws: SluiceError.self) {
            try HTTPResponseSerializer().validate(request: nil, response: notFound, body: nil)
        }
        #expect(alone?.message == "Request failed: not found (404) for https://api.example.com/v1/items?page=2")
        #expect(RequestTarget(method: .get, url: try #require(URL(string: "http://u@h:8080/p"))).description == "GET http://h:8080/p")
    }
}
