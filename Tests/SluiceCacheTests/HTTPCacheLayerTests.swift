import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

@testable import SluiceCache

/// The cache in a session's pipeline against a scripted origin in a network layer: no socket, the
/// clock moved by the test.
@Suite("HTTPCache in the pipeline, scripted origin")
struct HTTPCacheLayerTests {
    static let url = "http://origin.test/r"

    static func setUp(_ answers: [ScriptedOrigin.Answer]) throws -> (SessionManager, ScriptedOrigin, TestClock, HTTPCache) {
        let clock = TestClock()
        let origin = ScriptedOrigin(answers)
        let cache = HTTPCache(store: MemoryCacheStore(), now: { clock.now })
        return (try CacheTests.session(cache: cache, network: [origin]), origin, clock, cache)
    }

    static func get(_ session: SessionManager, _ fields: [(String, String)] = [], policy: HTTPRequest.CachePolicy = .useProtocolCachePolicy)
        async throws -> DataResponse
    {
        var request = HTTPRequest(url: URL(string: url)!)
        for (name, value) in fields { try request.headers.add(name: name, value: value) }
        request.cachePolicy = policy
        return try await session.data(for: request)
    }

    @Test("fresh: served from the store, marked cache in the answer and the metrics, with Age")
    func freshHit() async throws {
        let (session, origin, clock, _) = try Self.setUp([.response(200, [("Cache-Control", "max-age=60")], "one")])
        let first = try await Self.get(session)
        clock.advance(10)
        let second = try await Self.get(session)
        #expect(origin.requests.count == 1)
        #expect(String(decoding: second.data, as: UTF8.self) == "one")
        #expect(first.metrics.source == .network)
        #expect(second.metrics.source == .cache)
        #expect(second.response.headers.first("Age") == "10")
    }

    @Test("stale: revalidated with its ETag; a 304 serves the stored body with the new headers")
    func revalidated() async throws {
        let (session, origin, clock, _) = try Self.setUp([
            .response(200, [("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("X-Rev", "1")], "body"),
            .response(304, [("ETag", "\"v1\""), ("Cache-Control", "max-age=120"), ("X-Rev", "2")], ""),
        ])
        _ = try await Self.get(session)
        clock.advance(61)
        let second = try await Self.get(session)
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.headers.first("If-None-Match") == "\"v1\"")
        #expect(second.response.statusCode == 200)
        #expect(String(decoding: second.data, as: UTF8.self) == "body")
        #expect(second.response.headers.first("X-Rev") == "2")
        #expect(second.metrics.source == .revalidatedCache)
        // The 304 renewed its freshness: 120 s from now.
        clock.advance(100)
        let third = try await Self.get(session)
        #expect(origin.requests.count == 2)
        #expect(third.metrics.source == .cache)
    }

    @Test("a 304 naming another representation is not trusted: the request is sent again in full")
    func mismatched304() async throws {
        let (session, origin, clock, _) = try Self.setUp([
            .response(200, [("Cache-Control", "max-age=1"), ("ETag", "\"v1\"")], "old"),
            .response(304, [("ETag", "\"v2\"")], ""),
            .response(200, [("Cache-Control", "max-age=60"), ("ETag", "\"v2\"")], "new"),
        ])
        _ = try await Self.get(session)
        clock.advance(5)
        let second = try await Self.get(session)
        #expect(String(decoding: second.data, as: UTF8.self) == "new")
        #expect(origin.requests.count == 3)
        #expect(origin.requests.last?.headers.first("If-None-Match") == nil)
    }

    @Test("stale-if-error: a 5xx or a lost connection serves the stale response within the window")
    func staleIfError() async throws {
        let (session, origin, clock, _) = try Self.setUp([
            .response(200, [("Cache-Control", "max-age=10, stale-if-error=100")], "kept"),
            .response(503, [], "down"),
            .failure(.connectionLost),
        ])
        _ = try await Self.get(session)
        clock.advance(20)
        let during503 = try await Self.get(session)
        #expect(String(decoding: during503.data, as: UTF8.self) == "kept")
        #expect(during503.metrics.source == .staleCache)
        let duringLoss = try await Self.get(session)
        #expect(String(decoding: duringLoss.data, as: UTF8.self) == "kept")
        clock.advance(200)
        await #expect(throws: SluiceError.self) { try await Self.get(session) }
        #expect(origin.requests.count == 4)
    }

    @Test("returnCacheDataDontLoad with nothing stored: cacheMiss, and nothing is sent")
    func dontLoadMiss() async throws {
        let (session, origin, _, _) = try Self.setUp([.response(200, [], "x")])
        let error = await #expect(throws: SluiceError.self) { try await Self.get(session, policy: .returnCacheDataDontLoad) }
        #expect(error?.code == .cacheMiss)
        #expect(origin.requests.isEmpty)
        let onlyIfCached = await #expect(throws: SluiceError.self) { try await Self.get(session, [("Cache-Control", "only-if-cached")]) }
        #expect(onlyIfCached?.code == .cacheMiss)
    }

    @Test("no-store is never stored; a POST invalidates what was")
    func noStoreAndInvalidation() async throws {
        let (session, origin, _, _) = try Self.setUp([
            .response(200, [("Cache-Control", "no-store")], "a"),
            .response(200, [("Cache-Control", "max-age=60")], "b"),
            .response(201, [], "created"),
            .response(200, [("Cache-Control", "max-age=60")], "c"),
        ])
        _ = try await Self.get(session)
        _ = try await Self.get(session)
        #expect(origin.requests.count == 2)
        _ = try await Self.get(session)
        #expect(origin.requests.count == 2, "b was stored")
        var post = HTTPRequest(url: URL(string: Self.url)!, method: .post)
        post.body = .bytes(Data("x".utf8))
        _ = try await session.data(for: post)
        let after = try await Self.get(session)
        #expect(String(decoding: after.data, as: UTF8.self) == "c")
        #expect(origin.requests.count == 4)
    }

    @Test("every destination from the store: a file download and a stream get the stored body")
    func destinations() async throws {
        let (session, origin, _, _) = try Self.setUp([.response(200, [("Cache-Control", "max-age=60")], "stored body")])
        _ = try await Self.get(session)
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        let downloaded = try await session.download(for: HTTPRequest(url: URL(string: Self.url)!), to: { _, _ in target })
        #expect(try Data(contentsOf: target) == Data("stored body".utf8))
        #expect(downloaded.metrics.source == .cache)
        let (stream, response) = try await session.bytes(for: HTTPRequest(url: URL(string: Self.url)!))
        #expect(response.statusCode == 200)
        var streamed = Data()
        for try await chunk in stream { streamed.append(chunk) }
        #expect(streamed == Data("stored body".utf8))
        #expect(origin.requests.count == 1)
    }

    @Test("a streamed response is stored at its end, and only whole")
    func storedFromStream() async throws {
        let (session, origin, _, _) = try Self.setUp([.response(200, [("Cache-Control", "max-age=60")], "streamed")])
        let (stream, _) = try await session.bytes(for: HTTPRequest(url: URL(string: Self.url)!))
        for try await _ in stream {}
        let second = try await Self.get(session)
        #expect(String(decoding: second.data, as: UTF8.self) == "streamed")
        #expect(origin.requests.count == 1)
    }
}

extension HTTPCacheLayerTests {
    @Test("stale-while-revalidate: the stale response at once, marked stale; the revalidation on a task of its own; then fresh again")
    func staleWhileRevalidate() async throws {
        let (session, origin, clock, cache) = try Self.setUp([
            .response(200, [("Cache-Control", "max-age=10, stale-while-revalidate=60"), ("ETag", "\"v1\"")], "body"),
            .response(304, [("ETag", "\"v1\""), ("Cache-Control", "max-age=100, stale-while-revalidate=60")], ""),
        ])
        _ = try await Self.get(session)
        clock.advance(30)
        let stale = try await Self.get(session)
        #expect(stale.metrics.source == .staleCache)
        #expect(String(decoding: stale.data, as: UTF8.self) == "body")
        // The background revalidation reaches the origin on its own.
        try await Wait.until("the background revalidation reached the origin") { origin.requests.count >= 2 }
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.headers.first("If-None-Match") == "\"v1\"")
        func renewed() -> Bool {
            cache.store.responses(forKey: HTTPCache.key(for: URL(string: Self.url)!)).first?.headers.first("Cache-Control")?.hasPrefix("max-age=100") == true
        }
        try await Wait.until("the 304 renewed the stored response") { renewed() }
        let fresh = try await Self.get(session)
        #expect(fresh.metrics.source == .cache)
        #expect(origin.requests.count == 2)
    }
}
