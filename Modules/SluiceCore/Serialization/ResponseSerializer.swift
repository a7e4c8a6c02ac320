import Foundation

/// Validates a response and turns its body into a value.
///
/// Implementations are values that are safe to use from many threads at once.
public protocol ResponseSerializer: Sendable {
    /// What ``serialize(request:response:body:)`` produces.
    associatedtype Output: Sendable

    /// The media types this serializer accepts, possibly patterns (`*/*+json`); `nil` accepts any.
    /// Default `nil`.
    var acceptableMediaTypes: [MediaType]? { get }

    /// Validates the response and decodes its body.
    ///
    /// - Parameters:
    ///   - request: The request that produced the response, when known.
    ///   - response: The response head.
    ///   - body: The body received, or `nil` when there was none.
    /// - Throws: ``SluiceError`` when the response is unacceptable or the body cannot be decoded. The
    ///   error carries the response and the body.
    func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Output
}

extension ResponseSerializer {
    /// `nil`: any media type.
    public var acceptableMediaTypes: [MediaType]? { nil }
}
