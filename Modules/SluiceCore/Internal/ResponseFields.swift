import Synchronization

/// An ``HTTPResponse``'s header fields: given parsed, or kept as the field lines received and parsed the
/// first time they are read. Most responses a program receives are never asked for their fields; making
/// two strings per field and parsing `Content-Type` for each of them was the largest single cost of
/// completing a small request.
final class ResponseFields: Sendable {
    /// The field lines as received, each ended by a line feed (the status line and blank line left out);
    /// empty when the fields were given parsed.
    private let received: [UInt8]
    private let parsed: Mutex<Parsed?>

    private struct Parsed {
        let headers: HTTPHeaders
        let contentType: MediaType?
    }

    /// Fields already parsed.
    init(_ headers: HTTPHeaders) {
        received = []
        parsed = Mutex(Parsed(headers: headers, contentType: Self.contentType(of: headers)))
    }

    /// Field lines as received, parsed when first read: each line that is a valid field (as
    /// `HTTPHeader(fieldLine:)` reads it) becomes one, in order; the others are left out.
    init(receivedLines: [UInt8]) {
        received = receivedLines
        parsed = Mutex(nil)
    }

    var headers: HTTPHeaders { fields.headers }

    var contentType: MediaType? { fields.contentType }

    private var fields: Parsed {
        parsed.withLock { parsed in
            if let parsed { return parsed }
            let headers = Self.headers(fromLines: received)
            let made = Parsed(headers: headers, contentType: Self.contentType(of: headers))
            parsed = made
            return made
        }
    }

    private static func contentType(of headers: HTTPHeaders) -> MediaType? {
        headers.first("Content-Type").flatMap { MediaType($0) }
    }

    private static func headers(fromLines lines: [UInt8]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        lines.withUnsafeBytes { bytes in
            headers.reserveCapacity(bytes.count(where: { $0 == 0x0A }))
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                if let field = HTTPHeader(fieldLine: UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { headers.add(field) }
                start = end + 1
            }
        }
        return headers
    }
}
