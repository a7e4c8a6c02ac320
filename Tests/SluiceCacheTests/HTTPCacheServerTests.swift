import Foundation
import SluiceCore
import SluiceGzip
import SluiceTestSupport
import SluiceTransport
import Testing

@testable import SluiceCache

/// The cache against httpbin over loopback: what reaches the server is what a network layer below the
/// cache sees, and each answer says where it came from.
@Suite("HTTPCache against httpbin", .tags(.server), .needsServers, .serialized)
struct HTTPCacheServerTests {
    static func session() throws -> (SessionManager, NetworkRecorder) {
        let recorder = NetworkRecorder()
        return (try CacheTests.session(cache: HTTPCache(), network: [recorder]), recorder)
    }

    @Test("/cache/{n} (public, max-age=n): the second GET sends nothing and is served from the store")
    func freshHit() async throws {
        let (session, recorder) = try Self.session()
        let request = try TestEnvironment.request(.httpbin, "/cache/86400")
        let first = try await session.data(for: request)
        let second = try await session.data(for: request)
        #expect(recorder.count == 1)
        #expect(first.metrics.source == .network)
        #expect(second.metrics.source == .cache)
        #expect(second.data == first.data)
        #expect(second.response.headers.first("Age") != nil)
    }

    @Test("/etag/{etag}: a stored response without freshness is revalidated with If-None-Match, answered 304 with no body")
    func etagRevalidation() async throws {
        let (session, recorder) = try Self.session()
        let request = try TestEnvironment.request(.httpbin, "/etag/abc")
        let first = try await session.data(for: request)
        let second = try await session.data(for: request)
        #expect(recorder.count == 2)
        #expect(recorder.all.last?.request.headers.first("If-None-Match") == "abc")
        #expect(recorder.all.last?.status == 304)
        #expect(second.response.statusCode == 200)
        #expect(second.data == first.data)
        #expect(!second.data.isEmpty)
        #expect(second.metrics.source == .revalidatedCache)
    }

    @Test("/cache: revalidated with If-Modified-Since and If-None-Match from its Last-Modified and ETag")
    func lastModifiedRevalidation() async throws {
        let (session, recorder) = try Self.session()
        let request = try TestEnvironment.request(.httpbin, "/cache")
        _ = try await session.data(for: request)
        let second = try await session.data(for: request)
        let sent = try #require(recorder.all.last?.request)
        #expect(sent.headers.first("If-Modified-Since") != nil)
        #expect(recorder.all.last?.status == 304)
        #expect(second.metrics.source == .revalidatedCache)
    }

    @Test("a POST to a stored URL invalidates it: the next GET goes to the server")
    func invalidationAfterPost() async throws {
        let (session, recorder) = try Self.session()
        let get = try TestEnvironment.request(.httpbin, "/response-headers?Cache-Control=max-age%3D86400")
        _ = try await session.data(for: get)
        _ = try await session.data(for: get)
        #expect(recorder.count == 1)
        var post = try TestEnvironment.request(.httpbin, "/response-headers?Cache-Control=max-age%3D86400", method: .post)
        post.body = .bytes(Data())
        _ = try await session.data(for: post)
        let after = try await session.data(for: get)
        #expect(recorder.count == 3)
        #expect(after.metrics.source == .network)
    }

    @Test("Vary on a custom header: each value is its own variant")
    func varyOnCustomHeader() async throws {
        let (session, recorder) = try Self.session()
        var english = try TestEnvironment.request(.httpbin, "/response-headers?Cache-Control=max-age%3D86400&Vary=X-Lang")
        try english.headers.add(name: "X-Lang", value: "en")
        var french = english
        try french.headers.set(name: "X-Lang", value: "fr")
        _ = try await session.data(for: english)
        _ = try await session.data(for: french)
        let englishAgain = try await session.data(for: english)
        let frenchAgain = try await session.data(for: french)
        #expect(recorder.count == 2)
        #expect(englishAgain.metrics.source == .cache)
        #expect(frenchAgain.metrics.source == .cache)
    }

    @Test("nginx gzip on the fly with Vary: Accept-Encoding: judged on the request as sent (the bridge's Accept-Encoding), stored decoded, served the same")
    func gzipVaryAcceptEncoding() async throws {
        let recorder = NetworkRecorder()
        var configuration = SessionConfiguration()
        configuration.registry = try SerializerRegistry(plugins: [GzipPlugin()])
        configuration.cache = HTTPCache()
        configuration.networkLayers = [recorder]
        let session = SessionManager(configuration: configuration)
        let request = try TestEnvironment.request(.http, "/gzipped/plugins/text.txt")
        let first = try await session.data(for: request)
        let second = try await session.data(for: request)
        let expected = try TestEnvironment.servedFile("plugins/text.txt")
        #expect(first.data == expected)
        #expect(second.data == expected)
        #expect(first.response.headers.first("Content-Encoding") == "gzip")
        #expect(recorder.all.first?.request.headers.first("Accept-Encoding")?.contains("gzip") == true)
        // nginx's static file has a Last-Modified: fresh by the heuristic, or revalidated (its weak ETag).
        if recorder.count == 2 {
            #expect(recorder.all.last?.status == 304)
            #expect(second.metrics.source == .revalidatedCache)
        } else {
            #expect(recorder.count == 1)
            #expect(second.metrics.source == .cache)
        }
    }

    @Test("returnCacheDataElseLoad serves what is stored however old; reloadIgnoringCache goes to the server")
    func policies() async throws {
        let (session, recorder) = try Self.session()
        var request = try TestEnvironment.request(.httpbin, "/etag/p")
        _ = try await session.data(for: request)
        request.cachePolicy = .returnCacheDataElseLoad
        let stored = try await session.data(for: request)
        #expect(recorder.count == 1)
        #expect(stored.metrics.source == .staleCache)
        request.cachePolicy = .reloadIgnoringCache
        let reloaded = try await session.data(for: request)
        #expect(recorder.count == 2)
        #expect(recorder.all.last?.request.headers.first("If-None-Match") == nil)
        #expect(reloaded.metrics.source == .network)
    }
}
