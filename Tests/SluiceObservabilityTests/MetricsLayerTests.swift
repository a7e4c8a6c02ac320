import CoreMetrics
import Foundation
import MetricsTestKit
import SluiceCache
import SluiceMetrics
import SluiceTestSupport
import SluiceTransport
import Testing

/// swift-metrics values from real exchanges, reported to MetricsTestKit's in-memory backend.
@Suite("Metrics: requests, durations, bytes, errors, tasks in flight, cache outcomes", .tags(.server), .needsServers)
struct MetricsLayerTests {
    static func session(_ metrics: TestMetrics, cache: Bool = false) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.layers.append(HTTPMetricsLayer(factory: metrics, countsCacheOutcomes: cache))
        if cache { configuration.cache = HTTPCache() }
        return SessionManager(configuration: configuration)
    }

    static let get = [("http.request.method", "GET")]

    /// Waits until `count` tasks have been reported finished or failed (a task is reported when its body ends).
    static func settled(_ metrics: TestMetrics, count: Int) async throws {
        func ended() -> Int64 {
            metrics.counterTotal(label: HTTPMetricsLabels.requestsFinished) + metrics.counterTotal(label: HTTPMetricsLabels.errors)
        }
        try await Wait.until("\(count) task(s) reported finished or failed") { ended() >= count }
    }

    @Test("a GET and a POST: started, finished by status class, durations, bytes both ways, nothing left in flight")
    func successes() async throws {
        let metrics = TestMetrics()
        let session = Self.session(metrics)
        defer { session.invalidate(cancelingTasks: true) }
        let got = try await session.data(for: try TestEnvironment.request(.httpbin, "/get"))
        var post = try TestEnvironment.request(.httpbin, "/post", method: .post)
        post.body = .bytes(Data(repeating: 0x61, count: 1000))
        _ = try await session.data(for: post)
        _ = try await session.data(for: try TestEnvironment.request(.httpbin, "/status/404"))
        try await Self.settled(metrics, count: 3)

        #expect(try metrics.expectCounter(HTTPMetricsLabels.requestsStarted, Self.get).totalValue == 2)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.requestsFinished, Self.get + [("http.response.status_class", "2xx")]).totalValue == 1)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.requestsFinished, Self.get + [("http.response.status_class", "4xx")]).totalValue == 1)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.requestsFinished, [("http.request.method", "POST"), ("http.response.status_class", "2xx")]).totalValue == 1)
        #expect(try metrics.expectTimer(HTTPMetricsLabels.duration, Self.get + [("http.response.status_class", "2xx")]).values.count == 1)
        #expect(try metrics.expectTimer(HTTPMetricsLabels.timeToFirstByte, Self.get).values.count == 2)
        let duration = try #require(try metrics.expectTimer(HTTPMetricsLabels.duration, Self.get + [("http.response.status_class", "2xx")]).lastValue)
        let firstByte = try #require(try metrics.expectTimer(HTTPMetricsLabels.timeToFirstByte, Self.get).values.first)
        #expect(duration >= firstByte && firstByte > 0)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.bytesSent, [("http.request.method", "POST")]).totalValue == 1000)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.bytesReceived, Self.get).totalValue >= Int64(got.data.count))
        #expect(try metrics.expectMeter(HTTPMetricsLabels.activeRequests).lastValue == 0)
        #expect(metrics.counterTotal(label: HTTPMetricsLabels.errors) == 0)
    }

    @Test("redirects count as one task; a failure and a cancellation count as errors by code")
    func redirectsAndErrors() async throws {
        let metrics = TestMetrics()
        let session = Self.session(metrics)
        defer { session.invalidate(cancelingTasks: true) }
        _ = try await session.data(for: try TestEnvironment.request(.httpbin, "/redirect/3"))
        try await Self.settled(metrics, count: 1)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.requestsStarted, Self.get).totalValue == 1)
        #expect(metrics.counterTotal(label: HTTPMetricsLabels.requestsFinished) == 1)

        await #expect(throws: SluiceError.self) {
            try await session.data(for: SluiceCore.HTTPRequest(url: URL(string: "http://127.0.0.1:9/nothing")!))
        }
        let call = Task { try await session.data(for: try TestEnvironment.request(.httpbin, "/delay/10")) }
        try await Wait.until("the delayed request is in flight") {
            (try? metrics.expectMeter(HTTPMetricsLabels.activeRequests).lastValue) == 1
        }
        call.cancel()
        _ = await call.result
        try await Self.settled(metrics, count: 3)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.errors, Self.get + [("error.type", SluiceError.Code.cannotConnect.rawValue)]).totalValue == 1)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.errors, Self.get + [("error.type", SluiceError.Code.cancelled.rawValue)]).totalValue == 1)
        #expect(try metrics.expectTimer(HTTPMetricsLabels.duration, Self.get + [("http.response.status_class", "error")]).values.count == 2)
        #expect(try metrics.expectMeter(HTTPMetricsLabels.activeRequests).lastValue == 0)
    }

    @Test("a streamed body is measured when it has been read; in flight until then")
    func streamed() async throws {
        let metrics = TestMetrics()
        let session = Self.session(metrics)
        defer { session.invalidate(cancelingTasks: true) }
        let (stream, _) = try await session.bytes(for: try TestEnvironment.request(.httpbin, "/stream-bytes/40000?chunk_size=1000"))
        #expect(try metrics.expectMeter(HTTPMetricsLabels.activeRequests).lastValue == 1)
        var count = 0
        for try await chunk in stream { count += chunk.count }
        try await Self.settled(metrics, count: 1)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.bytesReceived, Self.get).totalValue == Int64(count))
        #expect(try metrics.expectMeter(HTTPMetricsLabels.activeRequests).lastValue == 0)
    }

    @Test("cache outcomes: a miss, then a hit, against nginx")
    func cacheOutcomes() async throws {
        let metrics = TestMetrics()
        let session = Self.session(metrics, cache: true)
        defer { session.invalidate(cancelingTasks: true) }
        let request = try TestEnvironment.request(.http, "/cached/max-age/text.txt?run=\(UUID().uuidString)")
        _ = try await session.data(for: request)
        _ = try await session.data(for: request)
        try await Self.settled(metrics, count: 2)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.cacheOutcomes, [("sluice.cache.outcome", "miss")]).totalValue == 1)
        #expect(try metrics.expectCounter(HTTPMetricsLabels.cacheOutcomes, [("sluice.cache.outcome", "hit")]).totalValue == 1)
    }
}
