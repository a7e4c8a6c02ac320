import Foundation
import SluiceCore

/// Reads response heads line by line as libcurl hands them over: status lines, field lines, the blank
/// line that ends a head. A value with no I/O: each line is an event, and the result says what the
/// transfer does next.
///
/// It notes the few fields the transfer acts on as they arrive (`Content-Length`, the first
/// `Content-Encoding`, whether there is a `Location`), keeps the raw field lines for the
/// ``ResponseHead``, counts interim (`1xx`) heads against a cap, and refuses a head whose
/// `Content-Length` fields disagree (RFC 9112 §6.3).
struct ResponseHeadParser {
    /// What a line means for the transfer.
    enum Outcome: Equatable {
        /// Part of a head: read on.
        case proceed
        /// An interim (`1xx`) head ended; the final one follows.
        case interim
        /// A final head ended: ``takeHead(url:)`` gives it.
        case head
        /// The response cannot be read safely: abort the transfer with `transport.invalidResponse`.
        case invalid(String)
    }

    /// The interim heads allowed before the final one.
    let maximumInterimResponses: Int
    /// The status of the head being read; 0 before a status line, or for one without three digits.
    private(set) var statusCode = 0
    private(set) var httpVersion = HTTPVersion.http1_1
    /// The interim heads read so far.
    private(set) var interimCount = 0
    /// The field lines of the head being read, each followed by LF.
    private var fieldLines: [UInt8] = []
    private var contentLength: Int64?
    /// Whether the head had a `Content-Length` field (``contentLength`` is `nil` for one that is not a length).
    private var hasContentLength = false
    private var contentEncoding: String?
    private var hasLocation = false

    /// A parser for one attempt. Its line buffer is made here, on the thread that makes the transfer.
    init(maximumInterimResponses: Int) {
        self.maximumInterimResponses = maximumInterimResponses
        fieldLines.reserveCapacity(512)
    }

    /// Starts over for a new attempt (a redirect or an authentication round).
    mutating func reset() {
        statusCode = 0
        interimCount = 0
        startHead()
    }

    /// Reads one line as libcurl hands it to the header callback, line end included.
    mutating func consume(_ line: UnsafeRawBufferPointer) -> Outcome {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return headEnded() }
        let bytes = UnsafeRawBufferPointer(rebasing: line[..<end])
        if end > 5, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "T"),
            bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/")
        {
            startHead()
            (httpVersion, statusCode) = Self.statusLine(bytes)
            return .proceed
        }
        if let problem = noteField(bytes) { return .invalid(problem) }
        // Checked when the response is made (ResponseHead.makeResponse), off the engine thread.
        if fieldLines.capacity == 0 { fieldLines.reserveCapacity(512) }
        fieldLines.append(contentsOf: bytes)
        fieldLines.append(0x0A)
        return .proceed
    }

    /// The final head just read, for `url`. Its field lines move into the head: the next head (after a
    /// redirect) starts a buffer of its own.
    mutating func takeHead(url: URL) -> ResponseHead {
        let head = ResponseHead(
            statusCode: statusCode, httpVersion: httpVersion, url: url, fieldLines: fieldLines,
            expectedContentLength: contentLength, contentEncoding: contentEncoding, hasLocation: hasLocation)
        fieldLines = []
        return head
    }

    /// `HTTP/1.1 200 OK`: the version and the three-digit status (0 without one).
    static func statusLine(_ line: UnsafeRawBufferPointer) -> (HTTPVersion, Int) {
        var index = 5
        while index < line.count, line[index] != UInt8(ascii: " ") { index += 1 }
        let version: HTTPVersion
        switch (index - 5, index > 5 ? line[5] : 0) {
        case (3, UInt8(ascii: "1")) where line[7] == UInt8(ascii: "0"): version = .http1_0
        case (1, UInt8(ascii: "2")), (3, UInt8(ascii: "2")): version = .http2
        case (1, UInt8(ascii: "3")), (3, UInt8(ascii: "3")): version = .http3
        default: version = .http1_1
        }
        while index < line.count, line[index] == UInt8(ascii: " ") { index += 1 }
        var status = 0, digits = 0
        while index < line.count, digits < 3, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
            status = status * 10 + Int(line[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        return (version, digits == 3 ? status : 0)
    }

    /// A new header block begins (a status line, or a new attempt).
    private mutating func startHead() {
        fieldLines.removeAll(keepingCapacity: true)
        contentLength = nil
        hasContentLength = false
        contentEncoding = nil
        hasLocation = false
    }

    /// The blank line after a header block.
    private mutating func headEnded() -> Outcome {
        guard statusCode < 200, statusCode != 0 else { return .head }
        interimCount += 1
        guard interimCount <= maximumInterimResponses else {
            return .invalid("the server sent more than \(maximumInterimResponses) interim (1xx) responses")
        }
        return .interim
    }

    /// Notes `Content-Length`, the first `Content-Encoding` and whether there is a `Location`. Returns
    /// why the head cannot be read, for `Content-Length` fields that disagree.
    private mutating func noteField(_ line: UnsafeRawBufferPointer) -> String? {
        switch line.first {
        case UInt8(ascii: "c"), UInt8(ascii: "C"):
            if let value = HTTPHeader.value(inFieldLine: line, named: "Content-Length") {
                return noteContentLength(value)
            } else if contentEncoding == nil, let value = HTTPHeader.value(inFieldLine: line, named: "Content-Encoding") {
                contentEncoding = String(decoding: value, as: UTF8.self).lowercased()
            }
        case UInt8(ascii: "l"), UInt8(ascii: "L"):
            if HTTPHeader.value(inFieldLine: line, named: "Location") != nil { hasLocation = true }
        default:
            break
        }
        return nil
    }

    /// Notes a `Content-Length` field. libcurl frames the body by the last one it sees, so lengths that
    /// disagree — in one field (`5, 96`) or across fields — would let a body carry another response: the
    /// transfer fails, and curl closes the connection it aborted. Identical repeats are one length.
    private mutating func noteContentLength(_ value: UnsafeRawBufferPointer) -> String? {
        let length: Int64?
        switch HTTPResponse.contentLengthField(value) {
        case .length(let value): length = value
        case .unreadable: length = nil
        case .conflicting:
            return "the response's Content-Length field lists different lengths (\(String(decoding: value, as: UTF8.self)))"
        }
        if hasContentLength {
            guard length == contentLength else {
                let earlier = contentLength.map(String.init) ?? "unreadable"
                return "the response has Content-Length fields that disagree (\(earlier), then \(String(decoding: value, as: UTF8.self)))"
            }
        } else {
            hasContentLength = true
            contentLength = length
        }
        return nil
    }
}
