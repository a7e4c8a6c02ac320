import Foundation
import SluiceCore
import SluiceGzip
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("Content decoding through the registry", .tags(.server), .needsServers, .serialized)
    struct ContentDecodingTests {
        private func session(limits: ContentCodingLimits? = nil) throws -> SessionManager {
            try Transport.session { configuration in
                configuration.registry = try! SerializerRegistry(plugins: [GzipPlugin()])
                if let limits {
                    configuration.contentCodingLimits = limits
                    configuration.streamingContentCodingLimits = limits
                }
            }
        }

        @Test("gzip and deflate responses from httpbin are decoded while they arrive", arguments: ["gzip", "deflate"])
        func decodes(coding: String) async throws {
            let result = try await session().data(for: Transport.request(.httpbin, "/\(coding)"))
            #expect(result.response.headers["Content-Encoding"] == coding)
            let json = try Transport.json(result.data)
            #expect(json[coding == "gzip" ? "gzipped" : "deflated"] as? Bool == true)
            #expect((json["headers"] as? [String: String])?["Accept-Encoding"] == "gzip, deflate")
        }

        @Test("without a coding in the registry, no Accept-Encoding is sent and bodies stay as they are")
        func noCodings() async throws {
            let plain = try Transport.session()
            let result = try await plain.data(for: Transport.request(.httpbin, "/headers"))
            #expect((try Transport.json(result.data)["headers"] as? [String: String])?["Accept-Encoding"] == nil)
        }

        @Test("the output limit stops a body that inflates past it")
        func outputLimit() async throws {
            let limited = try session(limits: ContentCodingLimits(maximumOutputBytes: 100))
            let error = await #expect(throws: SluiceError.self) {
                try await limited.data(for: Transport.request(.httpbin, "/gzip"))
            }
            #expect(error?.code == .contentCodingOutputLimit)
            #expect(error?.response?.statusCode == 200)
        }
    }
}
