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

    /// The `Content-Length` value, or `nil` when absent, not a number, or a list of lengths that differ
    /// (`5, 5` is 5).
    public var expectedContentLength: Int64? {
        guard let value = headers.first("Content-Length") else { return nil }
        if case .length(let length) = Self.contentLengthField(value.utf8) { return length }
        return nil
    }

    /// A `Content-Length` value as a length: a non-negative integer, else `nil`.
    package static func contentLength(_ value: String) -> Int64? { Int64(value).flatMap { $0 >= 0 ? $0 : nil } }

    /// What one received `Content-Length` field value says, read as RFC 9112 §6.3 reads it: a length, a
    /// list of identical lengths (`5, 5`, which a recipient may take as one), or values that differ
    /// (`5, 96`), an unrecoverable framing error. A value that is not a length at all is left to the
    /// HTTP layer below (libcurl refuses it).
    package enum ContentLengthField: Equatable, Sendable {
        /// One length, or several that agree.
        case length(Int64)
        /// Lengths that differ.
        case conflicting
        /// Not a list of lengths.
        case unreadable
    }

    /// Reads a received `Content-Length` field value (see ``ContentLengthField``).
    package static func contentLengthField(_ value: some Collection<UInt8>) -> ContentLengthField {
        var agreed: Int64?
        for element in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let trimmed = element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            guard !trimmed.isEmpty else { return .unreadable }
            var length: Int64 = 0
            for byte in trimmed.reversed() {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return .unreadable }
                let (times, overflowed) = length.multipliedReportingOverflow(by: 10)
                let (sum, overflowedAgain) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflowed, !overflowedAgain else { return .unreadable }
                length = sum
            }
            if let agreed, agreed != length { return .conflicting }
            agreed = length
        }
        return agreed.map(ContentLengthField.length) ?? .unreadable
    }

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
