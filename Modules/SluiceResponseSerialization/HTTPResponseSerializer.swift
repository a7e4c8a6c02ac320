import Foundation
import SluiceCore

/// Validates a response's status and content type and returns its body, as AFNetworking's
/// `AFHTTPResponseSerializer` does.
///
/// - The status check fails when the status is outside ``acceptableStatusCodes`` (default 200–299).
/// - The content-type check fails when ``acceptableContentTypes`` is set, the response's MIME type is not
///   in it, and the response has a body (an empty body, a 204 say, raises no content-type error).
///
/// A failure is a ``SluiceError`` carrying the response and the body received; when both checks fail,
/// the content-type error is the status error's underlying error.
public struct HTTPResponseSerializer: ResponseSerializer {
    /// The statuses accepted. Default 200–299.
    public var acceptableStatusCodes: IndexSet
    /// The MIME types accepted (patterns such as `text/*` and `*/*+json` allowed), or `nil` for any.
    /// Default `nil`.
    public var acceptableContentTypes: [MediaType]?

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - acceptableStatusCodes: Default 200–299.
    ///   - acceptableContentTypes: Default `nil`: any.
    public init(acceptableStatusCodes: IndexSet = IndexSet(200..<300), acceptableContentTypes: [MediaType]? = nil) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { acceptableContentTypes }

    /// Validates the response and returns the body (empty `Data` for none).
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/unacceptableStatusCode`` or
    ///   ``SluiceError/Code/unacceptableContentType``.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> Data {
        try validate(request: request, response: response, body: body)
        return body ?? Data()
    }

    /// Checks status and content type.
    ///
    /// - Throws: As ``serialize(request:response:body:)``.
    public func validate(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) {
        var contentTypeError: SluiceError?
        if let acceptable = acceptableContentTypes {
            // A response without a body has no content to refuse (a 204 may still name a type), as
            // AFNetworking: such a response raises no content-type error.
            let empty = body?.isEmpty ?? true
            let accepted = response.contentType.map { type in acceptable.contains { $0.matches(type) } } ?? false
            if !accepted && !empty {
                contentTypeError = SluiceError(
                    .unacceptableContentType,
                    "Request failed: unacceptable content-type: \(response.mimeType ?? "none")"
                        + Self.naming(request, response),
                    request: request, response: response, body: body)
            }
        }
        if !acceptableStatusCodes.contains(response.statusCode) {
            throw SluiceError(
                .unacceptableStatusCode,
                "Request failed: \(response.reasonPhrase.lowercased()) (\(response.statusCode))" + Self.naming(request, response),
                request: request, response: response, body: body, underlying: contentTypeError)
        }
        if let contentTypeError { throw contentTypeError }
    }
}

extension HTTPResponseSerializer {
    /// ` for METHOD URL` (credentials left out) to end a validation message with, so the message alone
    /// says which request failed; empty when neither the request nor the response's URL is known.
    static func naming(_ request: HTTPRequest?, _ response: HTTPResponse) -> String {
        RequestTarget(request: request, response: response).map { " for \($0)" } ?? ""
    }

    /// Whether the response has no content by its status or method: `204`, `205`, or the answer to a
    /// `HEAD`. Such a response passes ``validate(request:response:body:)`` whatever `Content-Type` it
    /// names (servers label empty answers with any type: httpbin's `/status/204` says `text/html`), and
    /// serializers give no value for it.
    public static func isNoContent(request: HTTPRequest?, response: HTTPResponse) -> Bool {
        response.statusCode == 204 || response.statusCode == 205 || request?.method == .head
    }
}
