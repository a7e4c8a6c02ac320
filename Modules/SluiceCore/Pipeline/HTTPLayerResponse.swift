/// A hop's answer as it travels up the pipeline: the request that produced it, the head, the body
/// (whole, in a file, or still arriving), where it came from, and the transactions behind it.
public struct HTTPLayerResponse: Sendable {
    /// The request that produced the response, as it was sent.
    public var request: HTTPRequest
    /// The response head. Below the bridge, as received; from the bridge up, as the body is delivered
    /// (a decoded body's `Content-Encoding` and `Content-Length` removed).
    public var response: HTTPResponse
    /// The body.
    public var body: HTTPLayerBody
    /// Where the response came from.
    public var source: ResponseSource
    /// One transaction per request the answer took (the follow-ups gather every hop's); a layer that
    /// answers itself may leave it empty, and the session then records one marked with ``source``.
    public var transactions: [TaskMetrics.Transaction]

    /// An answer.
    ///
    /// - Parameters:
    ///   - request: The request answered.
    ///   - response: The head.
    ///   - body: The body. Default ``HTTPLayerBody/empty``.
    ///   - source: Where it came from. Default ``ResponseSource/layer(_:)`` named `"answer"`.
    ///   - transactions: Default none.
    public init(
        request: HTTPRequest, response: HTTPResponse, body: HTTPLayerBody = .empty,
        source: ResponseSource = .layer("answer"), transactions: [TaskMetrics.Transaction] = []
    ) {
        self.request = request
        self.response = response
        self.body = body
        self.source = source
        self.transactions = transactions
    }
}
