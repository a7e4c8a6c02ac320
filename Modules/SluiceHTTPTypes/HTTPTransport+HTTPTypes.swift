import Foundation
import HTTPTypes
import SluiceCore

extension HTTPTransport {
    /// Sends a swift-http-types request with `body` through this transport (a `SessionManager`, with its
    /// whole pipeline and configuration) and returns the final response head as swift-http-types has it,
    /// with the body where `destination` says.
    ///
    /// ```swift
    /// var request = HTTPTypes.HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/v1/items")
    /// request.headerFields[.contentType] = "application/json"
    /// let (response, body) = try await session.send(request, body: .bytes(json))
    /// ```
    ///
    /// - Parameters:
    ///   - request: The head: method, `:scheme`, `:authority`, `:path` and header fields.
    ///   - body: The body. Default `.none`.
    ///   - destination: Where the response body goes. Default `.memory`.
    ///   - events: Who hears of the exchange as it runs. Default none.
    /// - Returns: The final response head (after redirects) and the body.
    /// - Throws: What `HTTPRequest.init(_:body:)` throws for a head with no SluiceCore form,
    ///   then what the transport throws (``SluiceError``; ``SluiceError/Code/cancelled`` when the calling
    ///   task is cancelled).
    public func send(
        _ request: HTTPTypes.HTTPRequest, body: SluiceCore.HTTPBody = .none,
        receiving destination: ResponseBodyDestination = .memory, events: TransportEvents = TransportEvents()
    ) async throws(SluiceError) -> (response: HTTPTypes.HTTPResponse, body: ResponseBody) {
        let exchange = try await exchange(SluiceCore.HTTPRequest(request, body: body), receiving: destination, events: events)
        return (try HTTPTypes.HTTPResponse(exchange.response), exchange.body)
    }
}
