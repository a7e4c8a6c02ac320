import Foundation
import SluiceCore

/// Validates a response and decodes its body as text: in the `Content-Type` charset, else UTF-8,
/// else Latin-1 (which decodes any bytes).
public struct StringResponseSerializer: ResponseSerializer {
    /// The validation rules. Default: 200–299, any content type.
    public var validation: HTTPResponseSerializer

    /// Creates a serializer.
    public init(validation: HTTPResponseSerializer = HTTPResponseSerializer()) { self.validation = validation }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and decodes; an absent body is `""`.
    ///
    /// - Throws: The validation errors.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> String {
        try validation.validate(request: request, response: response, body: body)
        guard let body, !body.isEmpty else { return "" }
        if let encoding = response.stringEncoding, let text = String(data: body, encoding: encoding) { return text }
        if let text = String(data: body, encoding: .utf8) { return text }
        // Latin-1 maps every byte to a character, so this never fails.
        return String(data: body, encoding: .isoLatin1) ?? String(decoding: body, as: UTF8.self)
    }
}
