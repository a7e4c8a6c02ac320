/// The one way a layer above the engine sends a request: request in; response head, body and events out.
///
/// `HTTPSessionManager` (in the `Sluice` module), its interceptors and anything layered on them reach the
/// network only through this protocol. `SessionManager` (SluiceTransport) is the implementation on
/// libcurl; a cache can answer or revalidate before passing a request on; a test double answers from a
/// table without a socket.
///
/// An implementation must:
/// - refuse a request it cannot send (``HTTPRequest/validateForSending()``) with a typed error before
///   anything is sent;
/// - treat every HTTP status as a response, not an error (validation is the response serializer's);
/// - end with ``SluiceError/Code/cancelled`` when the calling Swift task is cancelled;
/// - call ``TransportEvents/didCreateTask`` before the attempt starts, and on success make its last
///   ``TransportEvents/progress`` report, with the final counts, before it returns.
///
/// ```swift
/// let exchange = try await transport.exchange(request, receiving: .memory)
/// print(exchange.response.statusCode, exchange.body.data?.count ?? 0)
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` and delivers the response body where `destination` says.
    ///
    /// - Parameters:
    ///   - request: The request, body included.
    ///   - destination: In memory, into a file, or as a stream once the head has arrived.
    ///   - events: Who hears of the attempt as it runs.
    /// - Returns: The final request and response (after redirects), the body, and the metrics.
    /// - Throws: ``SluiceError``: the request's own errors before sending, transport failures (carrying
    ///   the request and any response), ``SluiceError/Code/cancelled``.
    func exchange(
        _ request: HTTPRequest, receiving destination: ResponseBodyDestination, events: TransportEvents
    ) async throws(SluiceError) -> TransportExchange
}

extension HTTPTransport {
    /// Sends `request` with no one listening to its events.
    ///
    /// - Throws: As ``exchange(_:receiving:events:)``.
    public func exchange(
        _ request: HTTPRequest, receiving destination: ResponseBodyDestination = .memory
    ) async throws(SluiceError) -> TransportExchange {
        try await exchange(request, receiving: destination, events: TransportEvents())
    }
}

extension SluiceError.Code {
    /// The task was cancelled by its owner (or the calling Swift task was cancelled). Every
    /// ``HTTPTransport`` ends a cancelled exchange with it, so it is declared here, beside the contract.
    public static let cancelled: Self = "transport.cancelled"
}
