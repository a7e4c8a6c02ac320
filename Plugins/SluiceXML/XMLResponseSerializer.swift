import Foundation
import SluiceCore
import SluiceResponseSerialization

/// Validates a response and parses an XML body into an ``XMLTree``.
///
/// Accepts `application/xml`, `text/xml` and any `+xml` type (`application/atom+xml`,
/// `image/svg+xml`). A `204`, a `205` and the answer to a `HEAD` give `nil` and no error whatever their
/// `Content-Type` (only their status is checked); any other
/// body must be a well-formed document, so an empty one is ``SluiceError/Code/xmlMalformed``.
///
/// ```swift
/// let response = try await session.data(for: request)
/// let tree = try XMLResponseSerializer().serialize(request: request, response: response.response, body: response.data)
/// ```
///
/// For bodies too large to hold, parse the stream of `SessionManager.bytes(for:)` with
/// ``XMLEventParser/parse(_:handler:)-(Chunks,_)`` or ``XMLTree/parse(_:)``, after checking the head
/// with ``validation``.
public struct XMLResponseSerializer: ResponseSerializer {
    /// The validation rules; content types default to ``defaultContentTypes``.
    public var validation: HTTPResponseSerializer

    /// `application/xml`, `text/xml` and `*/*+xml`.
    public static let defaultContentTypes = ["application/xml", "text/xml", "*/*+xml"].compactMap { MediaType($0) }

    /// Creates a serializer.
    ///
    /// - Parameters:
    ///   - acceptableStatusCodes: Default 200–299.
    ///   - acceptableContentTypes: Default ``defaultContentTypes``.
    public init(
        acceptableStatusCodes: IndexSet = IndexSet(200..<300),
        acceptableContentTypes: [MediaType] = XMLResponseSerializer.defaultContentTypes
    ) {
        validation = HTTPResponseSerializer(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and parses.
    ///
    /// - Throws: The validation errors (``SluiceError/Code/unacceptableStatusCode``,
    ///   ``SluiceError/Code/unacceptableContentType``), or
    ///   ``SluiceError/Code/xmlMalformed`` and ``SluiceError/Code/xmlEntityRefused``
    ///   carrying the request, the response and the body.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> XMLTree? {
        try validation.validate(request: request, response: response, body: body)
        if HTTPResponseSerializer.isNoContent(request: request, response: response) { return nil }
        do {
            return try XMLTree(parsing: body ?? Data())
        } catch {
            var error = error
            error.request = request
            error.response = response
            error.setBody(body)
            throw error
        }
    }
}
