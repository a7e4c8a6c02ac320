import Foundation

/// An ``HTTPResponse``'s header fields and URL: the fields given parsed, or kept as the field lines
/// received and parsed the first time they are read. Most responses a program receives are never asked
/// for their fields; making two strings per field and parsing `Content-Type` for each of them was the
/// largest single cost of completing a small request.
///
/// `@unchecked Sendable`: every access to the state goes through its lock. (A pthread mutex, as
/// ``LockedStorage`` has, rather than Synchronization's `Mutex`, whose futex ThreadSanitizer does not see.)
struct ResponseFields: @unchecked Sendable {
    /// The lines as received until the fields are first read, then the fields. Two optionals rather than
    /// an enum with two payloads: such an enum may keep its case in the spare bits of the payload's pointer,
    /// which hides the pointer from LeakSanitizer (llvm-project #56751), so a response held in a global
    /// showed as a leak of its header storage.
    private struct State {
        /// The field lines as received, each ended by a line feed (status line and blank line left out).
        var received: [UInt8]?
        var parsed: (headers: HTTPHeaders, contentType: MediaType?)?
        /// Kept here, not in the response: Foundation's `URL` has a layout known only at run time, and a
        /// response holding one directly had every copy of it (and of each error, result and answer that
        /// holds a response) made through run-time type metadata.
        let url: URL?
    }

    /// One allocation: the state and its lock.
    private let state: LockedStorage<State>

    /// Fields already parsed.
    init(_ headers: HTTPHeaders, url: URL?) {
        state = .make(State(parsed: (headers, Self.contentType(of: headers)), url: url))
    }

    /// Field lines as received, parsed when first read: each line that is a valid field (as
    /// `HTTPHeader(fieldLine:)` reads it) becomes one, in order; the others are left out.
    init(receivedLines: [UInt8], url: URL?) {
        state = .make(State(received: receivedLines, url: url))
    }

    /// The URL the response came from.
    var url: URL? { state.withLock { $0.url } }

    var headers: HTTPHeaders { fields.headers }

    var contentType: MediaType? { fields.contentType }

    private var fields: (headers: HTTPHeaders, contentType: MediaType?) {
        state.withLock { state in
            if let parsed = state.parsed { return parsed }
            let headers = Self.headers(fromLines: state.received ?? [])
            let parsed = (headers: headers, contentType: Self.contentType(of: headers))
            state.received = nil
            state.parsed = parsed
            return parsed
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
