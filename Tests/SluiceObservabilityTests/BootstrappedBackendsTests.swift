import CoreMetrics
import Foundation
import InMemoryTracing
import Instrumentation
import MetricsTestKit
import SluiceMetrics
import SluiceTestSupport
import SluiceTesting
import SluiceTracing
import SluiceTransport
import Testing
import Tracing

/// Layers made without a tracer or a metrics backend use the ones the process bootstrapped. Bootstrapping
/// is once per process: this is the test process's only bootstrap (every other test passes its backends).
@Suite("Tracing and metrics through the bootstrapped backends")
struct BootstrappedBackendsTests {
    @Test("the bootstrapped tracer's spans and injected context, and the bootstrapped metrics backend's counts")
    func bootstrapped() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        InstrumentationSystem.bootstrap(tracer)
        MetricsSystem.bootstrap(metrics)
        let stubs = HTTPStubs()
        stubs.stub(.any, .text("ok"))
        var configuration = SessionConfiguration()
        configuration.layers = [HTTPTracingLayer.task(), HTTPMetricsLayer()]
        configuration.networkLayers = [HTTPTracingLayer.hop()]
        let session = SessionManager(configuration: stubs.configuration(configuration))
        defer { session.invalidate(cancelingTasks: true) }
        _ = try await session.data(for: HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!))
        try await Wait.until("two finished spans: the task's and the hop's") { tracer.finishedSpans.count >= 2 }
        let hop = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(tracer.finishedSpans.count == 2)
        #expect(stubs.requests.first?.request.headers[InMemoryTracer.spanIDKey] == hop.spanID)
        #expect(metrics.counterTotal(label: HTTPMetricsLabels.requestsStarted) == 1)
        #expect(metrics.counterTotal(label: HTTPMetricsLabels.requestsFinished) == 1)
    }
}
