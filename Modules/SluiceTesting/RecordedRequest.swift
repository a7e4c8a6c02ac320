import Foundation
import SluiceCore

/// A request as an ``HTTPStubs`` saw it: as sent, after the session's interceptors, serializers, default
/// headers and `Accept-Encoding`, one per hop (a redirect or an authentication round is a request of its
/// own), with its body read whole.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The request; a body that was a stream or a file is here as the bytes it produced.
    public let request: HTTPRequest
    /// The body's bytes (empty without a body).
    public let body: Data
    /// The hop of its call: 0 for the first request, 1 for the first redirect or authentication round.
    public let hop: Int

    /// A recorded request.
    ///
    /// - Parameters:
    ///   - request: The request as sent.
    ///   - body: Its body's bytes. Default none.
    ///   - hop: Its hop in its call. Default 0.
    public init(request: HTTPRequest, body: Data = Data(), hop: Int = 0) {
        self.request = request
        self.body = body
        self.hop = hop
    }

    /// The method.
    public var method: HTTPMethod { request.method }
    /// The URL.
    public var url: URL { request.url }
    /// The header fields.
    public var headers: HTTPHeaders { request.headers }
    /// The body as UTF-8 text; `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The body decoded from JSON.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default a new `JSONDecoder`.
    /// - Throws: What `decoder` throws for a body that is not `type` in JSON.
    public func decodedBody<Value: Decodable>(as type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(type, from: body)
    }

    /// The method and URL, as in a request line: `GET https://example.com/items`.
    public var description: String { "\(method.rawValue) \(url.absoluteString)" }
}
