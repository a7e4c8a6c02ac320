/// A hop's answer as it travels up the pipeline: the request that produced it, the head, the body
/// (whole, in a file, or still arriving), where it came from, and the transactions behind it.
///
/// A value; its fields are shared by copies until one of them changes (copy on write), as every step of
/// the pipeline passes it up.
public struct HTTPLayerResponse: Sendable {
    private final class Storage: @unchecked Sendable {
        // Changed only through a uniquely referenced storage (`unique()`), so never while shared: the
        // exclusivity of the value that owns it is checked where that value is, and a run-time check of
        // each field here would only repeat it (at a cost on every read of the request path).
        @exclusivity(unchecked) var request: HTTPRequest
        @exclusivity(unchecked) var response: HTTPResponse
        @exclusivity(unchecked) var body: HTTPLayerBody
        @exclusivity(unchecked) var source: ResponseSource
        @exclusivity(unchecked) var transactions: [TaskMetrics.Transaction]

        init(
            request: HTTPRequest, response: HTTPResponse, body: HTTPLayerBody, source: ResponseSource,
            transactions: [TaskMetrics.Transaction]
        ) {
            self.request = request
            self.response = response
            self.body = body
            self.source = source
            self.transactions = transactions
        }

        func copy() -> Storage {
            Storage(request: request, response: response, body: body, source: source, transactions: transactions)
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The request that produced the response, as it was sent.
    public var request: HTTPRequest {
        get { storage.request }
        _modify { yield &unique().request }
    }
    /// The response head, as received (a decoded body's head keeps its `Content-Encoding`, as
    /// URLSession's does).
    public var response: HTTPResponse {
        get { storage.response }
        _modify { yield &unique().response }
    }
    /// The body.
    public var body: HTTPLayerBody {
        get { storage.body }
        _modify { yield &unique().body }
    }
    /// Where the response came from.
    public var source: ResponseSource {
        get { storage.source }
        _modify { yield &unique().source }
    }
    /// One transaction per request the answer took (the follow-ups gather every hop's); a layer that
    /// answers itself may leave it empty, and the session then records one marked with ``source``.
    public var transactions: [TaskMetrics.Transaction] {
        get { storage.transactions }
        _modify { yield &unique().transactions }
    }

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
        storage = Storage(request: request, response: response, body: body, source: source, transactions: transactions)
    }
}
