import Foundation

/// A response's head: status, header fields, the final URL after redirects, and the HTTP version,
/// with the media type and text encoding parsed from `Content-Type`.
public struct HTTPResponse: Sendable, Hashable, CustomStringConvertible {
    /// The status code, for example `200`.
    public let statusCode: Int
    /// The header fields as received. For a response the transport received, each field line is checked
    /// when this (or ``contentType``) is first read, and a malformed one is left out.
    public var headers: HTTPHeaders { fields.headers }
    /// The URL that produced this response, after any redirects; `nil` when unknown.
    public var url: URL? { fields.url }
    /// The protocol version. Default ``HTTPVersion/http1_1``.
    public let httpVersion: HTTPVersion
    /// The parsed `Content-Type`, or `nil` when absent or unparsable.
    public var contentType: MediaType? { fields.contentType }
    /// The fields, parsed when first read for a response the transport received, and the URL (kept there,
    /// so a response's own layout is fixed: see ``ResponseFields``).
    private let fields: ResponseFields

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
        self.httpVersion = httpVersion
        self.fields = ResponseFields(headers, url: url)
    }

    /// A response head whose fields are the received `fieldLines` (each ended by a line feed, the status
    /// line and the blank line left out), parsed the first time ``headers`` or ``contentType`` is read:
    /// each line that is a valid field becomes one, in order; the others are left out.
    package init(statusCode: Int, receivedFieldLines fieldLines: [UInt8], url: URL?, httpVersion: HTTPVersion) {
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.fields = ResponseFields(receivedLines: fieldLines, url: url)
    }

    /// Whether two responses have the same status, URL, version and fields (in order); a received
    /// response's fields are parsed for it.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.url == rhs.url && lhs.httpVersion == rhs.httpVersion
            && lhs.headers == rhs.headers
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(url)
        hasher.combine(httpVersion)
        hasher.combine(headers)
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
        if case .length(let length) = Self.contentLengthField(value) { return length }
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

    /// Reads a received `Content-Length` field value (see ``ContentLengthField``), in one pass over its
    /// bytes and without allocating: the transport reads every response's on its engine thread.
    package static func contentLengthField(_ value: UnsafeRawBufferPointer) -> ContentLengthField {
        var agreed: Int64?
        var current: Int64 = 0
        /// 0: before an element's digits; 1: in its digits; 2: after them (only white space may follow).
        var phase = 0
        for byte in value {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard phase < 2 else { return .unreadable }
                let (times, overflowed) = current.multipliedReportingOverflow(by: 10)
                let (sum, overflowedAgain) = times.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                guard !overflowed, !overflowedAgain else { return .unreadable }
                current = sum
                phase = 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if phase == 1 { phase = 2 }
            case UInt8(ascii: ","):
                guard phase > 0 else { return .unreadable }
                if let agreed, agreed != current { return .conflicting }
                agreed = current
                current = 0
                phase = 0
            default:
                return .unreadable
            }
        }
        guard phase > 0 else { return .unreadable }
        if let agreed, agreed != current { return .conflicting }
        return .length(current)
    }

    /// Reads a `Content-Length` field value given as a string (see ``ContentLengthField``).
    package static func contentLengthField(_ value: String) -> ContentLengthField {
        var value = value
        return value.withUTF8 { contentLengthField(UnsafeRawBufferPointer($0)) }
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
