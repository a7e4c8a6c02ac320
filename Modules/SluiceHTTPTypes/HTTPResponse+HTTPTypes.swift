import Foundation
import HTTPTypes
import SluiceCore

extension SluiceCore.HTTPResponse {
    /// The response head `response` describes.
    ///
    /// - Parameters:
    ///   - response: A swift-http-types response: its status code and header fields (order, repetitions
    ///     and spelling kept). Its reason phrase has no place in SluiceCore's head (which names a status by
    ///     its code) and is left out.
    ///   - url: The URL the response answered. Default `nil`.
    ///   - httpVersion: The protocol version. Default HTTP/1.1.
    /// - Throws: ``SluiceError/Code/invalidHeaderValue`` as `HTTPHeaders.init(_:)` (from `HTTPFields`).
    public init(
        _ response: HTTPTypes.HTTPResponse, url: URL? = nil, httpVersion: SluiceCore.HTTPVersion = .http1_1
    ) throws(SluiceError) {
        self.init(
            statusCode: response.status.code, headers: try SluiceCore.HTTPHeaders(response.headerFields), url: url,
            httpVersion: httpVersion)
    }
}

extension HTTPTypes.HTTPResponse {
    /// The head of `response` as swift-http-types has it: the status (code, and the standard reason
    /// phrase for it) and the header fields in order, repeated fields and spelling kept. The URL and
    /// version have no place there: read them from `response`.
    ///
    /// - Throws: ``SluiceError/Code/httpTypesUnsupported`` for a status code outside 0–999, which
    ///   swift-http-types cannot hold (a response received from a server always has three digits).
    public init(_ response: SluiceCore.HTTPResponse) throws(SluiceError) {
        guard (0...999).contains(response.statusCode) else {
            throw SluiceError(.httpTypesUnsupported, "the status code \(response.statusCode) is not three digits", response: response)
        }
        self.init(
            status: Status(code: response.statusCode, reasonPhrase: response.reasonPhrase),
            headerFields: HTTPFields(response.headers))
    }
}
