/// The names ``HTTPMetricsLayer`` reports under, and their dimensions.
///
/// Durations are timers in nanoseconds; sizes are counters of bytes.
public enum HTTPMetricsLabels {
    /// Counter: tasks started. Dimension `http.request.method`.
    public static let requestsStarted = "sluice.http.client.requests.started"
    /// Counter: tasks answered. Dimensions `http.request.method`, `http.response.status_class` (`1xx`…`5xx`).
    public static let requestsFinished = "sluice.http.client.requests.finished"
    /// Counter: tasks failed. Dimensions `http.request.method`, `error.type` (the ``SluiceError/Code``, for
    /// example `transport.cancelled`).
    public static let errors = "sluice.http.client.errors"
    /// Timer: from the request to the end of the body the caller receives, follow-ups included.
    /// Dimensions `http.request.method`, `http.response.status_class` (`error` for a failure).
    public static let duration = "http.client.request.duration"
    /// Timer: from the request to the final response head. Dimension `http.request.method`.
    public static let timeToFirstByte = "sluice.http.client.time_to_first_byte"
    /// Counter: request body bytes sent, every hop's. Dimension `http.request.method`.
    public static let bytesSent = "sluice.http.client.request.body.size"
    /// Counter: response body bytes the caller received (decoded). Dimension `http.request.method`.
    public static let bytesReceived = "sluice.http.client.response.body.size"
    /// Meter: tasks in flight, from the request to the end of its body.
    public static let activeRequests = "http.client.active_requests"
    /// Counter: where answers came from, when the layer counts cache outcomes. Dimension
    /// `sluice.cache.outcome`: `hit`, `revalidated`, `stale`, `miss` (the network answered), or `layer`
    /// (another layer answered).
    public static let cacheOutcomes = "sluice.http.client.cache.outcomes"
}
