import Foundation

/// A response's head: status, header fields, the final URL after redirects, and the HTTP version,
/// with the media type and text encoding parsed from `Content-Type`.
public struct HTTPResponse: Sendable, Hashable, CustomStringConvertible {
    /// The status code, for example `200`.
    public let statusCode: Int
    /// The header fields as received.
    public let headers: HTTPHeaders
    /// The URL that produced this response, after any redirects; `nil` when unknown.
    public let url: URL?
    /// The protocol version. Default ``HTTPVersion/http1_1``.
    public let httpVersion: HTTPVersion
    /// The parsed `Content-Type`, or `nil` when absent or unparsable.
    public let contentType: MediaType?

    /// Creates a response head.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The header fields. Default none.
    ///   - url: The final URL. Default `nil`.
    ///   - httpVersion: The version. Default HTTP/1.1.
    public init(
        statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), url: URL? = nil, httpVersion: HTTPVersion = .http1_1
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.httpVersion = httpVersion
        self.contentType = headers.first("Content-Type").flatMap { MediaType($0) }
    }

    /// The MIME type from `Content-Type` without parameters (`application/json`), or `nil`.
    public var mimeType: String? { contentType?.essence }

    /// The `charset` parameter of `Content-Type` as sent (`utf-8`), or `nil`.
    public var textEncodingName: String? { contentType?.charset }

    /// The `String.Encoding` named by ``textEncodingName``, or `nil` when absent or unknown.
    public var stringEncoding: String.Encoding? { textEncodingName.flatMap(TextEncodingNames.encoding(named:)) }

    /// The `Content-Length` value, or `nil` when absent or not a number.
    public var expectedContentLength: Int64? {
        headers.first("Content-Length").flatMap(Self.contentLength(_:))
    }

    /// A `Content-Length` value as a length: a non-negative integer, else `nil`.
    package static func contentLength(_ value: String) -> Int64? { Int64(value).flatMap { $0 >= 0 ? $0 : nil } }

    /// Whether the status is in 200–299.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// The standard reason phrase for ``statusCode`` (`Not Found`).
    public var reasonPhrase: String { Self.reasonPhrase(forStatusCode: statusCode) }

    /// The standard reason phrase for a status code, from the IANA registry; for an unregistered
    /// code, the phrase of its class (`Client Error` for an unknown 4xx), or `Unknown` outside 100–599.
    public static func reasonPhrase(forStatusCode code: Int) -> String { StatusReasons.phrase(for: code) }

    /// `HTTP/1.1 200 OK`.
    public var description: String { "\(httpVersion) \(statusCode) \(reasonPhrase)" }
}
