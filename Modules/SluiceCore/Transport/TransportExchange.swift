import Foundation

/// What an ``HTTPTransport`` returns for one request: the final request and response head, the body,
/// and the metrics.
public struct TransportExchange: Sendable {
    /// The request that produced ``response``: after redirects, with what the transport added.
    public var request: HTTPRequest
    /// The final response head.
    public var response: HTTPResponse
    /// The body, in the form the ``ResponseBodyDestination`` asked for.
    public var body: ResponseBody
    /// Timings and sizes, one transaction per request sent (so redirects show here); `nil` for a
    /// streamed body, whose transfer is still running when the exchange returns.
    public var metrics: TaskMetrics?

    /// An exchange with these parts.
    ///
    /// - Parameters: Each as the property of the same name; `metrics` defaults to `nil`.
    public init(request: HTTPRequest, response: HTTPResponse, body: ResponseBody, metrics: TaskMetrics? = nil) {
        self.request = request
        self.response = response
        self.body = body
        self.metrics = metrics
    }
}
