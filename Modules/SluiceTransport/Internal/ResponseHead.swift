import Foundation
import SluiceCore

/// A response head as it came off the wire: the status line's values and the raw field lines.
///
/// The engine thread keeps only this (one copy of the bytes per response) and the few fields it acts
/// on — `Content-Length`, `Content-Encoding`, `Location` — noted as the lines arrive. The ``HTTPResponse``, with
/// every field checked and `Content-Type` parsed, is made by ``makeResponse()`` when something needs
/// it, usually on the thread that completes the task.
struct ResponseHead: Sendable {
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

    /// The value of the field `line` (`Name: value`, no line end), trimmed, when its name is `name`
    /// (ASCII case-insensitive); otherwise `nil`.
    static func value(of line: UnsafeRawBufferPointer, ifNamed name: StaticString) -> UnsafeRawBufferPointer? {
        let wanted = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard line.count > wanted.count, line[wanted.count] == UInt8(ascii: ":") else { return nil }
        for index in 0..<wanted.count where lower(line[index]) != lower(wanted[index]) { return nil }
        var start = wanted.count + 1, end = line.count
        while start < end, line[start] == UInt8(ascii: " ") || line[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[start..<end])
    }

    /// A `Content-Length` value: decimal digits only, else `nil`.
    static func contentLength(_ value: UnsafeRawBufferPointer) -> Int64? {
        guard !value.isEmpty, value.count <= 18 else { return nil }
        var length: Int64 = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            length = length * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return length
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

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
