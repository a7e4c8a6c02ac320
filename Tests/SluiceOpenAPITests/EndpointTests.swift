import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import SluiceCore
import SluiceTestSupport
import Testing

/// Each operation of Tests/HTTPBinAPI/openapi.yaml, through the generated client on a `SessionManager`.
extension OpenAPISuites {
    @Suite("The generated httpbin client through SluiceClientTransport", .tags(.server), .needsServers)
    struct EndpointTests {
        @Test("GET /get: query parameters (a repeated one too) and a header parameter reach httpbin")
        func getWithQuery() async throws {
            let output = try await HTTPBin.client().getArgs(
                query: .init(name: "sluice openapi", count: 3, tag: ["a", "b"]),
                headers: .init(xRequestLabel: "label-1"))
            let echo = try output.ok.body.json
            #expect(HTTPBin.single(echo.args?.additionalProperties["name"]) == "sluice openapi")
            #expect(HTTPBin.single(echo.args?.additionalProperties["count"]) == "3")
            #expect(HTTPBin.list(echo.args?.additionalProperties["tag"]) == ["a", "b"])
            #expect(echo.headers.additionalProperties["X-Request-Label"] == "label-1")
            #expect(echo.url.hasSuffix("/get?name=sluice%20openapi&count=3&tag=a&tag=b"))
        }

        @Test("HEAD /get: the head with its Content-Length, and no body")
        func head() async throws {
            let output = try await HTTPBin.client().headGet()
            let length = try #require(try output.ok.headers.contentLength)
            #expect(length > 0)
        }

        @Test("POST /post with a JSON body: httpbin decodes it")
        func postJSON() async throws {
            let output = try await HTTPBin.client().postEcho(body: .json(.init(message: "hello", count: 2)))
            let echo = try output.ok.body.json
            #expect(echo.json == Components.Schemas.Greeting(message: "hello", count: 2))
            #expect(echo.headers.additionalProperties["Content-Type"] == "application/json; charset=utf-8")
        }

        @Test("POST /anything with multipart/form-data: a field and a file")
        func postMultipart() async throws {
            let attachment = Data((0..<1000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            let output = try await HTTPBin.client().postForm(
                body: .multipartForm([
                    .comment(.init(payload: .init(body: "a comment"))),
                    .attachment(.init(payload: .init(body: OpenAPIRuntime.HTTPBody(attachment)), filename: "letters.txt")),
                ]))
            let echo = try output.ok.body.json
            #expect(HTTPBin.single(echo.form?.additionalProperties["comment"]) == "a comment")
            #expect(HTTPBin.single(echo.files?.additionalProperties["attachment"]) == String(decoding: attachment, as: UTF8.self))
            let contentType = try #require(echo.headers.additionalProperties["Content-Type"])
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        }

        @Test("PUT /put with bytes of known length: sent with Content-Length")
        func putBytes() async throws {
            let bytes = Data(repeating: UInt8(ascii: "x"), count: 100_000)
            let output = try await HTTPBin.client().putBytes(body: .binary(OpenAPIRuntime.HTTPBody(bytes)))
            let echo = try output.ok.body.json
            #expect(echo.data == String(decoding: bytes, as: UTF8.self))
            #expect(echo.headers.additionalProperties["Content-Length"] == "100000")
            #expect(echo.headers.additionalProperties["Transfer-Encoding"] == nil)
        }

        @Test("DELETE /delete with a query parameter")
        func delete() async throws {
            let echo = try await HTTPBin.client().deleteEcho(query: .init(id: "42")).ok.body.json
            #expect(HTTPBin.single(echo.args?.additionalProperties["id"]) == "42")
        }

        @Test("GET /headers: the generated Accept header is sent")
        func headers() async throws {
            let echo = try await HTTPBin.client().getHeaders().ok.body.json
            #expect(echo.headers.additionalProperties["Accept"] == "application/json")
        }

        @Test("GET /bytes/{n}: the bytes, with the length from Content-Length")
        func bytes() async throws {
            let body = try await HTTPBin.client().getBytes(path: .init(n: 3000), query: .init(seed: 7)).ok.body.binary
            #expect(body.length == .known(3000))
            let bytes = try await Data(collecting: body, upTo: 1 << 20)
            #expect(bytes.count == 3000)
            let again = try await HTTPBin.client().getBytes(path: .init(n: 3000), query: .init(seed: 7)).ok.body.binary
            #expect(try await Data(collecting: again, upTo: 1 << 20) == bytes)
        }

        @Test("GET /status/{code}: a documented 200 and 204, and an undocumented 418 with its body")
        func status() async throws {
            let client = try HTTPBin.client()
            _ = try await client.getStatus(path: .init(code: 200)).ok
            _ = try await client.getStatus(path: .init(code: 204)).noContent
            guard case .undocumented(let statusCode, let payload) = try await client.getStatus(path: .init(code: 418)) else {
                Issue.record("418 is not documented: the client must return it as undocumented")
                return
            }
            #expect(statusCode == 418)
            let body = try #require(payload.body)
            let text = try await String(collecting: body, upTo: 1 << 16)
            #expect(text.contains("teapot"))
        }

        @Test("GET /redirect/{n}: the session follows the redirects; the client sees GET /get's answer")
        func redirect() async throws {
            let echo = try await HTTPBin.client().redirect(path: .init(n: 3)).ok.body.json
            #expect(echo.url.hasSuffix("/get"))
        }

        @Test("a base URL with a path: the operation's path goes after it, the query after that")
        func baseURLWithPath() async throws {
            let base = try HTTPBin.url().appendingPathComponent("anything/prefix")
            let echo = try await HTTPBin.client(serverURL: base).getArgs(query: .init(name: "x")).ok.body.json
            #expect(echo.url.hasSuffix("/anything/prefix/get?name=x"))
        }
    }
}
