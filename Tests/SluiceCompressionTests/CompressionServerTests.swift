import Foundation
import SluiceBrotli
import SluiceConformanceKit
import SluiceTestSupport
import SluiceTransport
import SluiceZstd
import Testing

/// brotli and Zstandard against the real servers: bodies nginx stores encoded, and bodies the test
/// app encodes on the fly, decoded by the transport through the session's registry while they arrive.
@Suite("brotli and zstd against nginx and the test app", .tags(.server), .needsServers, .serialized)
struct CompressionServerTests {
    private func session(limits: ContentCodingLimits? = nil) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.registry = try SerializerRegistry(plugins: [BrotliPlugin(), ZstdPlugin()])
        if let limits {
            configuration.contentCodingLimits = limits
            configuration.streamingContentCodingLimits = limits
        }
        return SessionManager(configuration: configuration)
    }

    @Test("Accept-Encoding offers both codings")
    func acceptEncoding() async throws {
        let result = try await session().data(for: TestEnvironment.request(.httpbin, "/headers"))
        let json = try #require(JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        #expect((json["headers"] as? [String: String])?["Accept-Encoding"] == "br, zstd")
    }

    @Test("stored encoded bodies decode to the stored text", arguments: [
        "/encoded/br/text.txt", "/encoded/zstd/text.txt", "/encoded/zstd/frames.txt",
    ])
    func stored(path: String) async throws {
        let result = try await session().data(for: TestEnvironment.request(.http, path))
        #expect(result.response.headers["Content-Encoding"] != nil)
        #expect(result.data == (try TestEnvironment.servedFile("plugins/text.txt")))
    }

    @Test("truncated and corrupt stored bodies fail with their codes", arguments: [
        ("/encoded/br/truncated.txt", [SluiceError.Code.contentCodingTruncated]),
        // brotli carries no checksum: damaged bytes may decode to other bytes until the stream's end
        // marker is missing (truncated) or a code is invalid (corrupt); either way the body is refused.
        ("/encoded/br/corrupt.txt", [.contentCodingCorrupt, .contentCodingTruncated]),
        ("/encoded/zstd/truncated.txt", [.contentCodingTruncated]), ("/encoded/zstd/corrupt.txt", [.contentCodingCorrupt]),
    ])
    func damaged(path: String, codes: [SluiceError.Code]) async throws {
        let error = await #expect(throws: SluiceError.self) { try await session().data(for: TestEnvironment.request(.http, path)) }
        #expect(error.map { codes.contains($0.code) } == true, "\(path): \(error.map { "\($0)" } ?? "")")
    }

    @Test("a bomb stops at the in-memory output limit", arguments: ["/encoded/br/bomb.bin", "/encoded/zstd/bomb.bin"])
    func bomb(path: String) async throws {
        let error = await #expect(throws: SluiceError.self) { try await session().data(for: TestEnvironment.request(.http, path)) }
        #expect([.contentCodingOutputLimit, .contentCodingRatioLimit].contains(error?.code), "\(path): \(error.map { "\($0)" } ?? "")")
    }

    @Test("bodies encoded on the fly, streamed in flushed chunks, decode in memory and into a file", arguments: ["br", "zstd"])
    func onTheFly(coding: String) async throws {
        let session = try session()
        let small = try await session.data(for: TestEnvironment.request(.httpbin, "/sluice/encoded/\(coding)/1000000"))
        #expect(small.response.headers["Content-Encoding"] == coding)
        #expect(small.data.count == 1_000_000)
        #expect(try await FileDigest.sha256(of: small.data) == small.response.headers["X-Sluice-SHA256"])
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(coding)-\(UUID())")
        defer { try? FileManager.default.removeItem(at: target) }
        let large = try await session.download(for: TestEnvironment.request(.httpbin, "/sluice/encoded/\(coding)/40000000")) { _, _ in target }
        #expect(try await FileDigest.sha256(ofFile: large.fileURL.path) == large.response.headers["X-Sluice-SHA256"])
    }

    @Test("httpbin's /brotli is decoded through the registry")
    func httpbinBrotli() async throws {
        let result = try await session().data(for: TestEnvironment.request(.httpbin, "/brotli"))
        #expect(result.response.headers["Content-Encoding"] == "br")
        let json = try #require(JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        #expect(json["brotli"] as? Bool == true)
    }
}
