/// An ``HTTPResponse``'s header fields: given parsed, or kept as the field lines received and parsed the
/// first time they are read. Most responses a program receives are never asked for their fields; making
/// two strings per field and parsing `Content-Type` for each of them was the largest single cost of
/// completing a small request.
///
/// `@unchecked Sendable`: every access to the state goes through its lock. (A pthread mutex, as
/// ``LockedStorage`` has, rather than Synchronization's `Mutex`, whose futex ThreadSanitizer does not see.)
struct ResponseFields: @unchecked Sendable {
    private enum State {
        /// The field lines as received, each ended by a line feed (status line and blank line left out).
        case received([UInt8])
        case parsed(HTTPHeaders, contentType: MediaType?)
    }

    /// One allocation: the state and its lock.
    private let state: LockedStorage<State>

    /// Fields already parsed.
    init(_ headers: HTTPHeaders) {
        state = .make(.parsed(headers, contentType: Self.contentType(of: headers)))
    }

    /// Field lines as received, parsed when first read: each line that is a valid field (as
    /// `HTTPHeader(fieldLine:)` reads it) becomes one, in order; the others are left out.
    init(receivedLines: [UInt8]) {
        state = .make(.received(receivedLines))
    }

    var headers: HTTPHeaders { fields.headers }

    var contentType: MediaType? { fields.contentType }

    private var fields: (headers: HTTPHeaders, contentType: MediaType?) {
        state.withLock { state in
            switch state {
            case .parsed(let headers, let contentType):
                return (headers, contentType)
            case .received(let lines):
                let headers = Self.headers(fromLines: lines)
                let contentType = Self.contentType(of: headers)
                state = .parsed(headers, contentType: contentType)
                return (headers, contentType)
            }
        }
    }

    private static func contentType(of headers: HTTPHeaders) -> MediaType? {
        headers.first("Content-Type").flatMap { MediaType($0) }
    }

    private static func headers(fromLines lines: [UInt8]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        lines.withUnsafeBytes { bytes in
            headers.reserveCapacity(bytes.count(where: { $0 == 0x0A }))
            HTTPHeader.forEachFieldLine(in: bytes) { line in
                if let field = HTTPHeader(fieldLine: line) { headers.add(field) }
            }
        }
        return headers
    }
}
