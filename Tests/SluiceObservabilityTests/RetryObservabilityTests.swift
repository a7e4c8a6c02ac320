import Foundation
import InMemoryTracing
import MetricsTestKit
import Sluice
import SluiceMetrics
import SluiceTestSupport
import SluiceTesting
import SluiceTracing
import Testing
import Tracing

/// Retries by HTTPSessionManager's interceptor: each attempt is a task of its own, with its own task and hop
/// spans, under the span of the code that made the call; the metrics count each attempt.
@Suite("Tracing and metrics across retries")
struct RetryObservabilityTests {
    @Test("a 503 retried once: two task spans under the caller's span, each with its hop; two requests started and finished")
    func retried() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let stubs = HTTPStubs()
        stubs.stub(.any, sequence: [.status(503), .json("{}")])
        var configuration = SessionConfiguration()
        configuration.layers = [HTTPTracingLayer.task(tracer: tracer), HTTPMetricsLayer(factory: metrics)]
        configuration.networkLayers = [HTTPTracingLayer.hop(tracer: tracer)]
        let manager = HTTPSessionManager(
            baseURL: URL(string: "https://api.example.com/"), configuration: stubs.configuration(configuration),
            interceptor: RetryPolicy(exponentialBackoffScale: .milliseconds(1)))
        let response = try await tracer.withSpan("caller") { _ in try await manager.get("items") }
        #expect(response.attempts == 2)
        try await Wait.until("five finished spans: the caller's, two tasks', two hops'") { tracer.finishedSpans.count >= 5 }
        let spans = tracer.finishedSpans
        let caller = try #require(spans.first { $0.operationName == "caller" })
        let tasks = spans.filter { $0.kind == .internal && $0.operationName == "GET" }
        #expect(tasks.count == 2 && tasks.allSatisfy { $0.parentSpanID == caller.spanID })
        let hops = spans.filter { $0.kind == .client }
        #expect(Set(hops.compactMap(\.parentSpanID)) == Set(tasks.map(\.spanID)))
        #expect(hops.compactMap { span -> Int64? in
            guard case .int64(let code) = span.attributes.get("http.response.status_code") else { return nil }
            return code
        }.sorted() == [200, 503])
        #expect(metrics.counterTotal(label: HTTPMetricsLabels.requestsStarted) == 2)
        #expect(try metrics.expectCounter(
            HTTPMetricsLabels.requestsFinished, [("http.request.method", "GET"), ("http.response.status_class", "5xx")]).totalValue == 1)
        #expect(try metrics.expectCounter(
            HTTPMetricsLabels.requestsFinished, [("http.request.method", "GET"), ("http.response.status_class", "2xx")]).totalValue == 1)
    }
}
