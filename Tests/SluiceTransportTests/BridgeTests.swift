import Foundation
import SluiceGzip
import Testing

@testable import SluiceTransport

/// What the bridge adds to a hop's request, table by table, without a socket.
@Suite("Bridge: the request as the session sends it")
struct BridgeTests {
    struct Row: Sendable, CustomStringConvertible {
        let description: String
        var defaults: [(String, String)] = []
        var headers: [(String, String)] = []
        var body = false
        var contentEncoding: String?
        var codings = false
        var leftOrigin = false
        /// The header lines expected, in order.
        let expected: [String]
    }

    static let rows: [Row] = [
        Row(description: "nothing to add: the request as it is", headers: [("Accept", "*/*")], expected: ["Accept: */*"]),
        Row(description: "default headers come first; the request's own win",
            defaults: [("User-Agent", "app/1"), ("Accept", "text/plain")], headers: [("Accept", "*/*")],
            expected: ["User-Agent: app/1", "Accept: */*"]),
        Row(description: "Content-Length and Transfer-Encoding are the transfer's",
            headers: [("Content-Length", "3"), ("Transfer-Encoding", "chunked"), ("X-A", "1")], body: true, expected: ["X-A: 1"]),
        Row(description: "Accept-Encoding for the registry's codings", codings: true,
            expected: ["Accept-Encoding: gzip, deflate"]),
        Row(description: "a request's own Accept-Encoding stays", headers: [("Accept-Encoding", "identity")], codings: true,
            expected: ["Accept-Encoding: identity"]),
        Row(description: "Content-Encoding for a body the session encodes", body: true, contentEncoding: "gzip", codings: true,
            expected: ["Content-Encoding: gzip", "Accept-Encoding: gzip, deflate"]),
        Row(description: "no Content-Encoding without a body", contentEncoding: "gzip", codings: true,
            expected: ["Accept-Encoding: gzip, deflate"]),
        Row(description: "no Content-Encoding for a coding the registry lacks", body: true, contentEncoding: "br",
            expected: []),
        Row(description: "origin-bound defaults dropped once a redirect left the origin",
            defaults: [("Authorization", "Bearer t"), ("Cookie", "a=1"), ("Proxy-Authorization", "Basic x"), ("X-Client", "c")],
            leftOrigin: true, expected: ["X-Client: c"]),
        Row(description: "origin-bound defaults kept at the origin",
            defaults: [("Authorization", "Bearer t")], expected: ["Authorization: Bearer t"]),
    ]

    @Test("each row", arguments: rows)
    func prepare(row: Row) throws {
        var configuration = SessionConfiguration()
        for (name, value) in row.defaults { try configuration.defaultHeaders.set(name: name, value: value) }
        if row.codings { configuration.registry = try SerializerRegistry(plugins: [GzipPlugin()]) }
        var request = HTTPRequest(url: "https://a.example/x", method: row.body ? .post : .get)
        for (name, value) in row.headers { request.headers.add(try HTTPHeader(name: name, value: value)) }
        if row.body { request.body = .bytes(Data("abc".utf8)) }
        request.contentEncoding = row.contentEncoding
        let prepared = Bridge.prepare(request, configuration: SharedConfiguration(configuration), leftOriginalOrigin: row.leftOrigin)
        #expect(prepared.headers.map { "\($0.name): \($0.value)" } == row.expected)
        #expect(prepared.url == request.url)
        #expect(prepared.method == request.method)
    }
}
