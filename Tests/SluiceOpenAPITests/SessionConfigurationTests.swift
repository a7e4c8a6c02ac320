import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import SluiceCore
import SluiceGzip
import SluiceTestSupport
import SluiceTransport
import Testing

/// The session's configuration applies to what the generated client sends: default headers, layers, content
/// codings, redirects.
extension OpenAPISuites {
    @Suite("The session's configuration under the generated client", .tags(.server), .needsServers)
    struct SessionConfigurationTests {
        @Test("the session's default headers reach httpbin beside the operation's own")
        func defaultHeaders() async throws {
            let session = HTTPBin.session { configuration in
                configuration.defaultHeaders = ["X-Api-Key": "secret-1", "User-Agent": "SluiceOpenAPITests"]
            }
            let echo = try await HTTPBin.client(session).getHeaders().ok.body.json
            #expect(echo.headers.additionalProperties["X-Api-Key"] == "secret-1")
            #expect(echo.headers.additionalProperties["User-Agent"] == "SluiceOpenAPITests")
            #expect(echo.headers.additionalProperties["Accept"] == "application/json")
        }

        @Test("the session's layers see the generated client's call; its network layers see each redirect hop")
        func layersSeeTheCall() async throws {
            let call = RecordingLayer()
            let hops = RecordingLayer()
            let session = HTTPBin.session { configuration in
                configuration.layers = [call]
                configuration.networkLayers = [hops]
            }
            _ = try await HTTPBin.client(session).redirect(path: .init(n: 2)).ok.body.json
            #expect(call.requests.withLock { $0.map(\.url.path) } == ["/redirect/2"])
            #expect(call.requests.withLock { $0.first?.headers["Accept"] } == "application/json")
            let paths = hops.requests.withLock { $0.map(\.url.path) }
            #expect(paths == ["/redirect/2", "/relative-redirect/1", "/get"], "\(paths)")
        }

        @Test("GET /gzip: the session's gzip content coding decodes the body before the client decodes the JSON")
        func gzip() async throws {
            let session = HTTPBin.session { configuration in
                configuration.registry = try! SerializerRegistry(plugins: [GzipPlugin()])
            }
            let output = try await HTTPBin.client(session).getGzip()
            let ok = try output.ok
            #expect(ok.headers.contentEncoding == "gzip")
            let document = try ok.body.json
            #expect(document.gzipped)
            #expect(document.headers?.additionalProperties["Accept-Encoding"]?.contains("gzip") == true)
        }

        @Test("a session that does not follow redirects hands the 307 to the client, undocumented")
        func redirectPolicy() async throws {
            let session = HTTPBin.session { $0.redirectPolicy = .refuse }
            let output = try await HTTPBin.client(session).redirectTo(
                query: .init(url: "/post", statusCode: 307), body: .binary("payload"))
            guard case .undocumented(let statusCode, _) = output else {
                Issue.record("expected the 307 itself, got \(output)")
                return
            }
            #expect(statusCode == 307)
        }
    }
}
