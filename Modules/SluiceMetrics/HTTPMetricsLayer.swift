import CoreMetrics
import Foundation
import SluiceCore

/// swift-metrics for a session: tasks started, answered and failed, durations, bytes, tasks in flight,
/// and cache outcomes, under the names of ``HTTPMetricsLabels``.
///
/// It belongs at the top of the pipeline, where it sees each task once (the caller's request, the final
/// answer, the body as the caller receives it):
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.layers.append(HTTPMetricsLayer())
/// ```
///
/// - A task is answered when the final head arrives (time to first byte); its duration runs to the end
///   of the body the caller receives (for a stream, when the caller has read it or dropped it).
/// - Bytes sent are the request body bytes of every hop (from the hops' transactions); bytes received
///   are the body bytes the caller got, after decoding.
/// - With `countsCacheOutcomes`, each answer is counted by where it came from: set it when the session
///   has a cache.
/// - With no metrics backend bootstrapped (`MetricsSystem.factory` is the no-op handler) and none
///   given, the layer passes each request on untouched.
public struct HTTPMetricsLayer: HTTPLayer {
    private let factory: (any MetricsFactory)?
    /// Whether answers are counted by where they came from (``HTTPMetricsLabels/cacheOutcomes``).
    public let countsCacheOutcomes: Bool

    /// A layer that reports to `factory`.
    ///
    /// - Parameters:
    ///   - factory: The metrics backend. Default `nil`: the one bootstrapped with `MetricsSystem`, read
    ///     at each request.
    ///   - countsCacheOutcomes: Whether to count answers by where they came from. Default `false`.
    public init(factory: (any MetricsFactory)? = nil, countsCacheOutcomes: Bool = false) {
        self.factory = factory
        self.countsCacheOutcomes = countsCacheOutcomes
    }

    /// Sends `request` on and measures the task (see ``HTTPMetricsLayer``).
    ///
    /// - Throws: What the layers below throw, unchanged (counted under ``HTTPMetricsLabels/errors``).
    public func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        // Without a backend the request passes on from here, in a frame of its own: the measured path's
        // async frame, much larger, is not allocated for it.
        let factory = self.factory ?? MetricsSystem.factory
        if factory is NOOPMetricsHandler { return try await next(request, context: context) }
        return try await measured(request, context: context, next: next, factory: factory)
    }

    /// Sends `request` on and measures the task with `factory`.
    private func measured(
        _ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext, factory: any MetricsFactory
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let method = request.method.rawValue
        let measurement = CallMeasurement(factory: factory, method: method, started: .now)
        var answer: HTTPLayerResponse
        do {
            answer = try await next(request, context: context)
        } catch {
            measurement.end(.failure(error))
            throw error
        }
        measurement.answered(statusCode: answer.response.statusCode)
        let sent = answer.transactions.reduce(Int64(0)) { $0 + $1.bytesSent }
        if sent > 0 {
            Counter(label: HTTPMetricsLabels.bytesSent, dimensions: [("http.request.method", method)], factory: factory)
                .increment(by: sent)
        }
        if countsCacheOutcomes {
            Counter(label: HTTPMetricsLabels.cacheOutcomes, dimensions: [("sluice.cache.outcome", Self.outcome(answer.source))], factory: factory)
                .increment()
        }
        switch answer.body.content {
        case .data(let data):
            measurement.received(data.count)
            measurement.end(.success(()))
        case .file(let url):
            // A file is whole too; observing it would make the session read it back only to count it.
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber
            measurement.received(size?.intValue ?? 0)
            measurement.end(.success(()))
        case .stream:
            answer.body = answer.body.observed(onChunk: { measurement.received($0.count) }, onEnd: { measurement.end($0) })
        }
        return answer
    }

    /// The cache outcome an answer from `source` counts as.
    static func outcome(_ source: ResponseSource) -> String {
        switch source {
        case .network: "miss"
        case .cache: "hit"
        case .revalidatedCache: "revalidated"
        case .staleCache: "stale"
        case .layer: "layer"
        }
    }
}
