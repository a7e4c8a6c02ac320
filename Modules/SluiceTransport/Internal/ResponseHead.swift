import Foundation
import SluiceCore

/// A response head as it came off the wire: the status line's values and the raw field lines.
///
/// The engine thread keeps only this (one copy of the bytes per response) and the few fields it acts
/// on — `Content-Length`, `Content-Encoding`, `Location` — noted as the lines arrive. The ``HTTPResponse`` is
/// made by ``makeResponse()`` when something needs it, usually on the thread that completes the task; it
/// takes the same bytes and checks and parses its fields only when they are first read.
///
/// A class: the head passes from the parser to the transfer, its report to the task and the task's
/// state, and a copy of the values would retain the URL, the lines and the coding each time.
final class ResponseHead: Sendable {
    let statusCode: Int
    let httpVersion: HTTPVersion
    let url: URL
    /// The field lines in order, without their line ends, each followed by one LF.
    let fieldLines: [UInt8]
    /// The first `Content-Length` when it is a valid length, as ``HTTPResponse/expectedContentLength``.
    let expectedContentLength: Int64?
    /// The first `Content-Encoding`, lowercased; `nil` when absent.
    let contentEncoding: String?
    /// Whether there is a `Location` field.
    let hasLocation: Bool

    init(
        statusCode: Int, httpVersion: HTTPVersion, url: URL, fieldLines: [UInt8], expectedContentLength: Int64?,
        contentEncoding: String?, hasLocation: Bool
    ) {
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.url = url
        self.fieldLines = fieldLines
        self.expectedContentLength = expectedContentLength
        self.contentEncoding = contentEncoding
        self.hasLocation = hasLocation
    }

    /// The response, each field checked as ``HTTPHeader/init(name:value:)`` checks it; a malformed
    /// field from the server is dropped rather than failing the response.
    func makeResponse() -> HTTPResponse {
        HTTPResponse(statusCode: statusCode, receivedFieldLines: fieldLines, url: url, httpVersion: httpVersion)
    }

    /// The first `Content-Range: bytes FIRST-LAST/LENGTH` (or `bytes */LENGTH`) field's first byte
    /// position and complete length, each `nil` when absent or `*`; `nil` without such a field.
    var contentRange: (first: Int64?, length: Int64?)? {
        var range: (first: Int64?, length: Int64?)?
        fieldLines.withUnsafeBytes { bytes in
            HTTPHeader.forEachFieldLine(in: bytes) { line in
                guard range == nil, let value = HTTPHeader.value(inFieldLine: line, named: "Content-Range") else { return }
                let text = String(decoding: value, as: UTF8.self)
                guard text.lowercased().hasPrefix("bytes ") else { return }
                let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
                let parts = spec.split(separator: "/", maxSplits: 1)
                guard parts.count == 2 else { return }
                range = (parts[0].split(separator: "-").first.flatMap { Int64($0) }, Int64(parts[1]))
            }
        }
        return range
    }
}
