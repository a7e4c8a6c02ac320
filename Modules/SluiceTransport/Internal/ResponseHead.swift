import Foundation
import SluiceCore

/// A response head as it came off the wire: the status line's values and the raw field lines.
///
/// The engine thread keeps only this (one copy of the bytes per response) and looks up the few fields
/// it acts on — `Content-Encoding`, `Content-Length`, `Location` — in place. The ``HTTPResponse``, with
/// every field checked and `Content-Type` parsed, is made by ``makeResponse()`` when something needs
/// it, usually on the thread that completes the task.
struct ResponseHead: Sendable {
    let statusCode: Int
    let httpVersion: HTTPVersion
    let url: URL
    /// The field lines in order, without their line ends, each followed by one LF.
    let fieldLines: [UInt8]

    /// The response, each field checked as ``HTTPHeader/init(name:value:)`` checks it; a malformed
    /// field from the server is dropped rather than failing the response.
    func makeResponse() -> HTTPResponse {
        var headers = HTTPHeaders()
        fieldLines.withUnsafeBytes { bytes in
            headers.reserveCapacity(bytes.count(where: { $0 == 0x0A }))
            Self.forEachLine(bytes) { line in
                if let field = HTTPHeader(fieldLine: line) { headers.add(field) }
                return true
            }
        }
        return HTTPResponse(statusCode: statusCode, headers: headers, url: url, httpVersion: httpVersion)
    }

    /// The value of the first field named `name` (ASCII case-insensitive), without the optional
    /// whitespace around it; `nil` when there is none.
    func firstValue(_ name: StaticString) -> String? {
        let wanted = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var found: String?
        fieldLines.withUnsafeBytes { bytes in
            Self.forEachLine(bytes) { line in
                guard line.count > wanted.count, line[wanted.count] == UInt8(ascii: ":") else { return true }
                for index in 0..<wanted.count where Self.lower(line[index]) != Self.lower(wanted[index]) { return true }
                var start = wanted.count + 1, end = line.count
                while start < end, line[start] == UInt8(ascii: " ") || line[start] == UInt8(ascii: "\t") { start += 1 }
                while end > start, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t") { end -= 1 }
                found = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
                return false
            }
        }
        return found
    }

    /// `Content-Length` when present and valid, as ``HTTPResponse/expectedContentLength``.
    var expectedContentLength: Int64? {
        firstValue("Content-Length").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Calls `body` with each line until it returns `false`.
    private static func forEachLine(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Bool) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            guard body(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else { return }
            start = end + 1
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
