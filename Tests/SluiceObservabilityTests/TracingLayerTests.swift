import Foundation
import InMemoryTracing
import SluiceCache
import SluiceTestSupport
import SluiceTesting
import SluiceTracing
import SluiceTransport
import Testing
import Tracing

/// Spans from real exchanges with httpbin and nginx, reported to an in-memory tracer: one per task, one
/// per hop, their attributes, the trace context in each hop's request, and what a failure, a
/// cancellation, a cache hit and a stub look like.
@Suite("Tracing: spans per task and per hop")
struct TracingLayerTests {
    static func session(_ tracer: InMemoryTracer, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.layers.append(HTTPTracingLayer.task(tracer: tracer))
        configuration.networkLayers.append(HTTPTracingLayer.hop(tracer: tracer))
        configure(&configuration)
        return SessionManager(configuration: configuration)
    }

    /// The finished spans once `count` have finished (a span ends with its body, which may be a moment
    /// after the call returns).
    static func finished(_ tracer: InMemoryTracer, count: Int) async throws -> [FinishedInMemorySpan] {
        try await Wait.until("\(count) finished span(s)") { tracer.finishedSpans.count >= count }
        return tracer.finishedSpans
    }

    static func string(_ span: FinishedInMemorySpan, _ key: String) -> String? {
        guard case .string(let value) = span.attributes.get(key) else { return nil }
        return value
    }

    static func int(_ span: FinishedInMemorySpan, _ key: String) -> Int64? {
        guard case .int64(let value) = span.attributes.get(key) else { return nil }
        return value
    }

    @Test("a GET: a task span and a client hop span under it, with the conventions' attributes; the trace context reaches the server", .tags(.server), .needsServers)
    func success() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidate(cancelingTasks: true) }
        let base = try TestEnvironment.url(for: .httpbin)
        let result = try await session.data(for: try TestEnvironment.request(.httpbin, "/headers?x=1"))
        let spans = try await Self.finished(tracer, count: 2)
        #expect(spans.count == 2)
        let hop = try #require(spans.first { $0.kind == .client })
        let task = try #require(spans.first { $0.kind == .internal })
        #expect(hop.parentSpanID == task.spanID && hop.traceID == task.traceID)
        #expect(task.parentSpanID == nil)
        for span in [hop, task] {
            #expect(span.operationName == "GET")
            #expect(Self.string(span, "http.request.method") == "GET")
            #expect(Self.string(span, "url.full") == base.absoluteString + "/headers?x=1")
            #expect(Self.string(span, "server.address") == base.host)
            #expect(Self.int(span, "server.port") == Int64(base.port!))
            #expect(Self.int(span, "http.response.status_code") == 200)
            #expect(Self.string(span, "network.protocol.version") == "1.1")
            #expect(Self.string(span, "sluice.response.source") == "network")
            #expect(Self.int(span, "http.response.body.size") == Int64(result.data.count))
            #expect(span.status == nil && span.errors.isEmpty)
        }
        // httpbin echoes the headers it received: the hop span's own IDs, as the tracer injected them.
        let echoed = try JSONDecoder().decode([String: [String: String]].self, from: result.data)["headers"] ?? [:]
        #expect(echoed["In-Memory-Span-Id"] == hop.spanID)
        #expect(echoed["In-Memory-Trace-Id"] == hop.traceID)
        #expect(tracer.performedContextInjections.count == 1)
    }

    @Test("two redirects and an authentication round: one task span, a hop span per request, resend counts 1…n", .tags(.server), .needsServers)
    func hops() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer) { $0.authenticationChallengeHandler = { _, _ in Credential(user: "user", password: "passwd") } }
        defer { session.invalidate(cancelingTasks: true) }
        _ = try await session.data(for: try TestEnvironment.request(.httpbin, "/redirect-to?url=%2Fredirect%2F1"))
        let redirects = try await Self.finished(tracer, count: 4)
        #expect(redirects.filter { $0.kind == .client }.map { Self.int($0, "http.request.resend_count") } == [nil, 1, 2])
        #expect(redirects.filter { $0.kind == .client }.map { Self.int($0, "http.response.status_code") } == [302, 302, 200])
        let task = try #require(redirects.first { $0.kind == .internal })
        #expect(redirects.filter { $0.kind == .client }.allSatisfy { $0.parentSpanID == task.spanID })
        #expect(Self.string(task, "url.full")?.hasSuffix("/redirect-to?url=%2Fredirect%2F1") == true)

        tracer.clearFinishedSpans()
        let answer = try await session.data(for: try TestEnvironment.request(.httpbin, "/basic-auth/user/passwd"))
        #expect(answer.response.statusCode == 200)
        let rounds = try await Self.finished(tracer, count: 3)
        #expect(rounds.filter { $0.kind == .client }.map { Self.int($0, "http.response.status_code") } == [401, 200])
        // The 401 hop is an error by the conventions; the task, answered 200, is not.
        #expect(rounds.first { Self.int($0, "http.response.status_code") == 401 }?.status?.code == .error)
        #expect(rounds.first { $0.kind == .internal }?.status == nil)
    }

    @Test("a failure and an error status: error.type is the SluiceError code or the status, the span is failed", .tags(.server), .needsServers)
    func failures() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidate(cancelingTasks: true) }
        let error = await #expect(throws: SluiceError.self) {
            try await session.data(for: SluiceCore.HTTPRequest(url: URL(string: "http://127.0.0.1:9/nothing")!))
        }
        let failed = try await Self.finished(tracer, count: 2)
        #expect(failed.count == 2)
        for span in failed {
            #expect(Self.string(span, "error.type") == error?.code.rawValue)
            #expect(span.status?.code == .error)
            #expect(span.errors.count == 1)
            #expect(Self.int(span, "server.port") == 9)
        }

        tracer.clearFinishedSpans()
        _ = try await session.data(for: try TestEnvironment.request(.httpbin, "/status/503"))
        let status = try await Self.finished(tracer, count: 2)
        #expect(status.allSatisfy { Self.string($0, "error.type") == "503" && $0.status?.code == .error })
    }

    @Test("cancelling the task ends both spans with transport.cancelled", .tags(.server), .needsServers)
    func cancellation() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidate(cancelingTasks: true) }
        let request = try TestEnvironment.request(.httpbin, "/delay/10")
        let call = Task { try await session.data(for: request) }
        try await Wait.until("the task's and the hop's spans have started") { tracer.activeSpans.count >= 2 }
        call.cancel()
        _ = await call.result
        let spans = try await Self.finished(tracer, count: 2)
        #expect(spans.count == 2)
        #expect(spans.allSatisfy { Self.string($0, "error.type") == SluiceError.Code.cancelled.rawValue })
    }

    @Test("a streamed body: the spans end when it has been read, or when it is dropped unread", .tags(.server), .needsServers)
    func streams() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidate(cancelingTasks: true) }
        let (stream, _) = try await session.bytes(for: try TestEnvironment.request(.httpbin, "/stream-bytes/50000?chunk_size=1000"))
        #expect(tracer.finishedSpans.isEmpty, "a span ended before its body")
        var count = 0
        for try await chunk in stream { count += chunk.count }
        let read = try await Self.finished(tracer, count: 2)
        #expect(count == 50_000)
        #expect(read.allSatisfy { Self.int($0, "http.response.body.size") == 50_000 })

        tracer.clearFinishedSpans()
        do {
            let (dropped, _) = try await session.bytes(for: try TestEnvironment.request(.httpbin, "/stream-bytes/50000?chunk_size=1000"))
            _ = dropped
        }
        let droppedSpans = try await Self.finished(tracer, count: 2)
        #expect(droppedSpans.count == 2, "the spans of a body dropped unread never ended")
    }

    @Test("a download into a file: both spans end with the file's size", .tags(.server), .needsServers)
    func download() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidate(cancelingTasks: true) }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-traced-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        _ = try await session.download(for: try TestEnvironment.request(.http, "/files/1m.bin")) { _, _ in target }
        let spans = try await Self.finished(tracer, count: 2)
        #expect(spans.count == 2)
        #expect(spans.allSatisfy { Self.int($0, "http.response.body.size") == 1 << 20 })
    }

    @Test("a cache hit is a task span marked cache, with no hop span: not a network call", .tags(.server), .needsServers)
    func cacheHit() async throws {
        let tracer = InMemoryTracer()
        let session = Self.session(tracer) { $0.cache = HTTPCache() }
        defer { session.invalidate(cancelingTasks: true) }
        let request = try TestEnvironment.request(.http, "/cached/max-age/text.txt?run=\(UUID().uuidString)")
        _ = try await session.data(for: request)
        _ = try await Self.finished(tracer, count: 2)
        tracer.clearFinishedSpans()
        let second = try await session.data(for: request)
        #expect(second.metrics.source == .cache)
        let spans = try await Self.finished(tracer, count: 1)
        // A hop span, had there been one, would have started inside the task before the task span ended: it is
        // active or finished by now, so none in either list shows there is none, without waiting.
        #expect(tracer.activeSpans.isEmpty, "a span is still open after the cache hit's task span ended")
        #expect(tracer.finishedSpans.count == 1)
        #expect(spans.first?.kind == .internal)
        #expect(spans.first.flatMap { Self.string($0, "sluice.response.source") } == "cache")
        #expect(spans.first?.attributes.get("network.protocol.version") == nil)
    }

    @Test("a stub below the hop layer: its hop span is marked with the stub's source, not the network")
    func stubbed() async throws {
        let tracer = InMemoryTracer()
        let stubs = HTTPStubs()
        stubs.stub(.any, .text("stubbed"))
        let session = Self.session(tracer) { $0 = stubs.configuration($0) }
        defer { session.invalidate(cancelingTasks: true) }
        _ = try await session.data(for: SluiceCore.HTTPRequest(url: URL(string: "https://api.example.com/v1")!))
        let spans = try await Self.finished(tracer, count: 2)
        let hop = try #require(spans.first { $0.kind == .client })
        #expect(Self.string(hop, "sluice.response.source")?.hasPrefix("layer") == true)
        #expect(hop.attributes.get("network.protocol.version") == nil)
        // The stub saw the injected context, as a server would.
        #expect(stubs.requests.first?.request.headers["in-memory-span-id"] == hop.spanID)
    }

    @Test("with the no-op tracer, requests pass untouched: no header added")
    func noOp() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.any, .text("ok"))
        var configuration = SessionConfiguration()
        configuration.layers.append(HTTPTracingLayer.task(tracer: NoOpTracer()))
        configuration.networkLayers.append(HTTPTracingLayer.hop(tracer: NoOpTracer()))
        let session = SessionManager(configuration: stubs.configuration(configuration))
        defer { session.invalidate(cancelingTasks: true) }
        let request = SluiceCore.HTTPRequest(url: URL(string: "https://api.example.com/v1")!)
        _ = try await session.data(for: request)
        let sent = try #require(stubs.requests.first?.request.headers)
        #expect(!sent.contains("traceparent") && !sent.contains("in-memory-span-id") && !sent.contains("in-memory-trace-id"))
    }
}
