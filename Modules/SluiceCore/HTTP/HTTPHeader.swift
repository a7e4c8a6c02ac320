/// One HTTP header field: a name and a value.
///
/// Fields are created through ``HTTPHeaders``, which checks them; a field's name keeps the spelling it
/// was given, and compares case-insensitively in lookups.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    /// The field name as given, for example `Content-Type`.
    public let name: String
    /// The field value, with leading and trailing spaces and tabs removed.
    public let value: String

    /// Creates a field after checking it.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidHeaderName`` when `name` is not a
    ///   non-empty HTTP token, or ``SluiceError/Code/invalidHeaderValue`` when `value` holds CR, LF, NUL
    ///   or another control character other than tab.
    public init(name: String, value: String) throws(SluiceError) {
        guard HTTPToken.isToken(name) else {
            throw SluiceError(
                .invalidHeaderName,
                "invalid header name \(name.debugDescription): a name must be a non-empty HTTP token")
        }
        if let byte = HTTPToken.firstForbiddenValueByte(value) {
            throw SluiceError(
                .invalidHeaderValue,
                "invalid value for header \(name): it contains \(HTTPToken.describe(byte))")
        }
        self.name = name
        self.value = value.trimmingHTTPWhitespace()
    }

    /// The name in canonical form: each dash-separated word capitalized (`content-type` → `Content-Type`).
    public var canonicalName: String { HTTPHeaders.canonicalName(name) }

    /// The field as it goes on the wire, without the line end: `Name: value`.
    public var description: String { "\(name): \(value)" }
}

extension HTTPHeader {
    /// Reads one received field line (`Name: value`, line ending already removed) as the transport
    /// gets it from the wire, checking the bytes as ``init(name:value:)`` checks strings.
    ///
    /// Returns `nil` for a line that is not a valid field: no colon, a name that is not a token, or a
    /// value with control characters other than tab.
    package init?(fieldLine line: UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        for index in 0..<colon where !HTTPToken.isTokenByte(line[index]) { return nil }
        let value = Self.trimmedValue(of: line, from: colon + 1)
        guard !value.contains(where: HTTPToken.isForbiddenValueByte) else { return nil }
        self.name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
        self.value = String(decoding: value, as: UTF8.self)
    }

    /// Calls `body` with each line of `lines`, received field lines each ended by a line feed (the form
    /// the transport keeps a response head in), without its line feed.
    package static func forEachFieldLine(in lines: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        while start < lines.count {
            var end = start
            while end < lines.count, lines[end] != 0x0A { end += 1 }
            body(UnsafeRawBufferPointer(rebasing: lines[start..<end]))
            start = end + 1
        }
    }

    /// The value of a received field line (as for ``init(fieldLine:)``) when its name is `name`, compared
    /// ignoring ASCII case, without the optional whitespace around it; `nil` for a field of another name.
    /// The value is not checked.
    package static func value(inFieldLine line: UnsafeRawBufferPointer, named name: StaticString) -> UnsafeRawBufferPointer? {
        let wanted = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard line.count > wanted.count, line[wanted.count] == UInt8(ascii: ":") else { return nil }
        for index in 0..<wanted.count where HTTPHeaders.asciiLower(line[index]) != HTTPHeaders.asciiLower(wanted[index]) {
            return nil
        }
        return trimmedValue(of: line, from: wanted.count + 1)
    }

    /// `line[start...]` without leading and trailing spaces and tabs.
    private static func trimmedValue(of line: UnsafeRawBufferPointer, from start: Int) -> UnsafeRawBufferPointer {
        var start = start, end = line.count
        while start < end, line[start] == UInt8(ascii: " ") || line[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[start..<end])
    }
}

extension String {
    /// The string without leading and trailing spaces and horizontal tabs (HTTP's optional whitespace).
    ///
    /// Trimmed byte by byte: a space that one grapheme cluster joins to its neighbour (after a prepended
    /// concatenation mark such as U+06DD, before a combining mark) goes too.
    func trimmingHTTPWhitespace() -> String {
        let bytes = utf8
        let isWhitespace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let firstByte = bytes.first, let lastByte = bytes.last else { return self }
        if !isWhitespace(firstByte) && !isWhitespace(lastByte) { return self }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        // UTF-8 indices: slicing the string itself would widen the range to whole grapheme clusters.
        return String(Substring(bytes[first...last]))
    }
}
