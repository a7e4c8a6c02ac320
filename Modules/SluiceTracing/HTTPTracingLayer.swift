import Foundation
import SluiceCore
import Tracing

/// Distributed tracing for a session: a span for each task, and a child span for each hop (each redirect
/// and authentication round), with OpenTelemetry's HTTP client attributes, and the trace context injected
/// into each hop's request header fields.
///
/// Two layers, one for each place in the pipeline (`SessionConfiguration` is in SluiceTransport):
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.layers.append(HTTPTracingLayer.task())          // the top: one span per task
/// configuration.networkLayers.insert(HTTPTracingLayer.hop(), at: 0) // above the network: one per hop
/// ```
///
/// - The task span (kind `internal`, named by the method) covers the whole call, from the request to the
///   end of the body the caller receives, follow-ups included; its `sluice.response.source` says where
///   the answer came from. A response answered by the cache never reaches the network layers, so it
///   has a task span and no hop span: it is not reported as a network call.
/// - A hop span (kind `client`) covers one request on the network and its body. Its request carries the
///   trace context as the tracer's instrument writes it (W3C `traceparent` with an OpenTelemetry
///   tracer); `http.request.resend_count` counts the hops before it. Put it above the `networkLayers`
///   that answer themselves (stubs) to see their answers too, marked with `sluice.response.source`.
/// - Attributes: `http.request.method` (`_OTHER` and `http.request.method_original` for others),
///   `url.full` (user name and password left out), `server.address`, `server.port`,
///   `http.response.status_code`, `network.protocol.version`, `http.response.body.size`, `error.type`
///   (the status code from 400 up, else the ``SluiceError/Code``). A status from 400 up or an error marks
///   the span failed.
/// - With no tracer bootstrapped (`InstrumentationSystem.tracer` is the no-op tracer) and none given,
///   the layers pass each request on untouched: no span, no header, no allocation.
public struct HTTPTracingLayer: HTTPLayer {
    /// Where the layer sits, and so what its spans cover.
    public enum Scope: Sendable, Hashable {
        /// In `SessionConfiguration.layers`: one span per task.
        case task
        /// In `SessionConfiguration.networkLayers`: one span per hop, and the trace context in its
        /// header fields.
        case hop
    }

    /// What the layer's spans cover.
    public let scope: Scope
    private let tracer: (any Tracer)?

    /// A layer for `scope` that reports to `tracer`.
    ///
    /// - Parameters:
    ///   - scope: What the spans cover.
    ///   - tracer: The tracer. Default `nil`: the one bootstrapped with `InstrumentationSystem`, read
    ///     at each request.
    public init(_ scope: Scope, tracer: (any Tracer)? = nil) {
        self.scope = scope
        self.tracer = tracer
    }

    /// The task layer, for `SessionConfiguration.layers`.
    ///
    /// - Parameter tracer: The tracer. Default `nil`: the bootstrapped one.
    public static func task(tracer: (any Tracer)? = nil) -> HTTPTracingLayer { HTTPTracingLayer(.task, tracer: tracer) }

    /// The hop layer, for `SessionConfiguration.networkLayers`.
    ///
    /// - Parameter tracer: The tracer. Default `nil`: the bootstrapped one.
    public static func hop(tracer: (any Tracer)? = nil) -> HTTPTracingLayer { HTTPTracingLayer(.hop, tracer: tracer) }

    /// Sends `request` on inside a span (see ``HTTPTracingLayer``).
    ///
    /// - Throws: What the layers below throw, unchanged (the span records it).
    public func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        // Without a tracer the request passes on from here, in a frame of its own: the traced path's async
        // frame, much larger, is not allocated for it.
        guard let tracer = activeTracer() else { return try await next(request, context: context) }
        return try await traced(request, context: context, next: next, tracer: tracer)
    }

    /// The tracer to report to, or `nil` when there is none (the no-op tracer).
    private func activeTracer() -> (any Tracer)? {
        let tracer: any Tracer
        if let given = self.tracer {
            tracer = given
        } else {
            // Nothing bootstrapped (a program that traces nothing): a type check, not the search for a tracer
            // among the instruments, which costs a protocol-conformance lookup per request.
            if InstrumentationSystem.instrument is NoOpInstrument { return nil }
            tracer = InstrumentationSystem.tracer
        }
        return tracer is NoOpTracer ? nil : tracer
    }

    /// Sends `request` on inside a span of `tracer`.
    private func traced(
        _ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext, tracer: any Tracer
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let span = tracer.startSpan(
            HTTPSpanAttributes.spanName(request), context: InstrumentationContext.current ?? .topLevel,
            ofKind: scope == .hop ? .client : .internal)
        var request = request
        if scope == .hop {
            tracer.inject(span.context, into: &request.headers, using: HTTPHeadersInjector())
        }
        span.updateAttributes { attributes in
            HTTPSpanAttributes.request(request, into: &attributes)
            if scope == .hop, context.hop > 0 { attributes["http.request.resend_count"] = context.hop }
        }

        var answer: HTTPLayerResponse
        do {
            answer = try await Self.send(request, context: context, next: next, inside: span.context)
        } catch {
            SpanFailure.record(error, on: span)
            span.end()
            throw error
        }
        span.updateAttributes { HTTPSpanAttributes.response(answer, into: &$0) }
        SpanFailure.mark(answer, on: span)
        let ending = SpanEnding(span)
        switch answer.body.content {
        case .data(let data):
            // The body is whole already: the span ends with the head.
            ending.received(data.count)
            ending.end(.success(()))
        case .file(let url):
            // A file is whole too; observing it would make the session read it back only to count it.
            ending.received(Self.size(of: url))
            ending.end(.success(()))
        case .stream:
            answer.body = answer.body.observed(onChunk: { ending.received($0.count) }, onEnd: { ending.end($0) })
        }
        return answer
    }

    /// The size of the file at `url`, 0 when it cannot be read.
    static func size(of url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Runs the layers below with `spanContext` as the current context, so their spans are its children.
    private static func send(
        _ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext, inside spanContext: InstrumentationContext
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let result: Result<HTTPLayerResponse, SluiceError> = await InstrumentationContext.withValue(spanContext) {
            do throws(SluiceError) {
                return .success(try await next(request, context: context))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
