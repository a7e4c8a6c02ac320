import Foundation
import SluiceCore
import SluiceTransport

/// What an ``HTTPSessionManager`` request produced: the serialized value, the response, the raw body,
/// the metrics, and how many attempts it took.
public struct HTTPSessionResponse<Value: Sendable>: Sendable {
    /// The value the response serializer made of the body.
    public let value: Value
    /// The final response.
    public let response: HTTPResponse
    /// The request as the last attempt sent it (adapted, after redirects).
    public let request: HTTPRequest
    /// The body bytes received (decoded from any content coding).
    public let data: Data
    /// Timings and sizes of the last attempt.
    public let metrics: TaskMetrics
    /// Attempts made, 1 when the first succeeded.
    public let attempts: Int

    /// Creates a response.
    public init(value: Value, response: HTTPResponse, request: HTTPRequest, data: Data, metrics: TaskMetrics, attempts: Int) {
        self.value = value
        self.response = response
        self.request = request
        self.data = data
        self.metrics = metrics
        self.attempts = attempts
    }
}

extension HTTPSessionResponse where Value == (any Sendable)? {
    /// The value as ``Parameters``, without a cast: what the default ``JSONResponseSerializer`` (and
    /// the property-list serializer) make of a body. `nil` when the body was empty (`204`) or the
    /// response serializer made another type (an `XMLTree`, an image); ``value`` has it then.
    ///
    /// ```swift
    /// let document = try await manager.get("forecast", parameters: ["city": "Lyon"])
    /// print(document.parameters?["temperature"] ?? .null)
    /// ```
    public var parameters: Parameters? { value as? Parameters }
}
