import Foundation
import SluiceCore

/// Validates a response and decodes its body as text, in the charset its `Content-Type` declares; a
/// response that declares none is read as UTF-8, else as Latin-1 (which decodes any bytes).
///
/// A declared charset is taken at its word: bytes it cannot decode, or a charset Sluice does not know,
/// are an error rather than text guessed in another charset. (Alamofire's string serializer fails the
/// same way when the declared encoding cannot decode the body.)
public struct StringResponseSerializer: ResponseSerializer {
    /// The validation rules. Default: 200–299, any content type.
    public var validation: HTTPResponseSerializer

    /// Creates a serializer.
    public init(validation: HTTPResponseSerializer = HTTPResponseSerializer()) { self.validation = validation }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and decodes; an absent or empty body is `""` whatever the charset.
    ///
    /// - Throws: The validation errors; ``SluiceError`` with code
    ///   ``SluiceError/Code/stringDecodingFailed`` when the body's bytes are not valid in the
    ///   declared charset or the declared charset is unknown (the error carries the request, response
    ///   and body).
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> String {
        try validation.validate(request: request, response: response, body: body)
        guard let body, !body.isEmpty else { return "" }
        if let charset = response.textEncodingName {
            guard let encoding = response.stringEncoding else {
                throw failure("the declared charset \(charset.debugDescription) is not one Sluice can decode", request, response, body)
            }
            guard let text = String(data: body, encoding: encoding) else {
                throw failure("the body is not valid \(charset) text, the charset its Content-Type declares", request, response, body)
            }
            return text
        }
        if let text = String(data: body, encoding: .utf8) { return text }
        // Latin-1 maps every byte to a character, so this never fails.
        return String(data: body, encoding: .isoLatin1) ?? String(decoding: body, as: UTF8.self)
    }

    private func failure(_ message: String, _ request: HTTPRequest?, _ response: HTTPResponse, _ body: Data) -> SluiceError {
        SluiceError(.stringDecodingFailed, message, request: request, response: response, body: body)
    }
}
