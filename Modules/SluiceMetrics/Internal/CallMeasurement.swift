import CoreMetrics
import SluiceCore

/// One task's measurements, reported once: when the body the caller receives ends, when the task fails,
/// or, for a body nobody reads, when the last reference to it goes.
final class CallMeasurement: Sendable {
    private let factory: any MetricsFactory
    private let method: String
    private let started: ContinuousClock.Instant
    private let active: Meter
    private let tally = BodyTally()
    /// The status class of the answer (`2xx`…), once there is one.
    private let statusClass = Locked<String?>(nil)

    init(factory: any MetricsFactory, method: String, started: ContinuousClock.Instant) {
        self.factory = factory
        self.method = method
        self.started = started
        active = Meter(label: HTTPMetricsLabels.activeRequests, dimensions: [], factory: factory)
        Counter(label: HTTPMetricsLabels.requestsStarted, dimensions: [("http.request.method", method)], factory: factory)
            .increment()
        active.increment()
    }

    deinit { end(.success(())) }

    /// The final head arrived with `statusCode`.
    func answered(statusCode: Int) {
        let name = "\(min(max(statusCode / 100, 1), 9))xx"
        statusClass.withLock { $0 = name }
        Timer(label: HTTPMetricsLabels.timeToFirstByte, dimensions: [("http.request.method", method)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(ContinuousClock.now - started))
    }

    /// Counts a part of the body.
    func received(_ count: Int) { tally.add(count) }

    /// Reports the task (once): answered, or failed with the error.
    func end(_ result: Result<Void, SluiceError>) {
        guard let bytes = tally.finish() else { return }
        let methodDimension = ("http.request.method", method)
        let outcome: String
        switch result {
        case .success:
            outcome = statusClass.withLock { $0 } ?? "error"
            Counter(label: HTTPMetricsLabels.requestsFinished, dimensions: [methodDimension, ("http.response.status_class", outcome)], factory: factory)
                .increment()
        case .failure(let error):
            outcome = "error"
            Counter(label: HTTPMetricsLabels.errors, dimensions: [methodDimension, ("error.type", error.code.rawValue)], factory: factory)
                .increment()
        }
        if bytes > 0 {
            Counter(label: HTTPMetricsLabels.bytesReceived, dimensions: [methodDimension], factory: factory).increment(by: bytes)
        }
        Timer(label: HTTPMetricsLabels.duration, dimensions: [methodDimension, ("http.response.status_class", outcome)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(ContinuousClock.now - started))
        active.decrement()
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
