/// The scheme of a URL's string and whether it names a host, read from its bytes in one pass: what the
/// transport checks before it sends to a URL, for every request it sends.
///
/// Read from the string (the string libcurl is given) rather than through Foundation's `scheme` and
/// `host`: those two cost about a microsecond and a half between them (the host is percent-decoded).
/// The string is one Foundation has already parsed, so its scheme and authority are well formed.
package struct URLHead: Sendable, Equatable {
    /// The schemes a transfer sends to, in any case; ``other`` for every other scheme and for none.
    package enum Scheme: Sendable, Equatable {
        case http, https
        /// `http+unix`: async-http-client's form of a URL whose host is a percent-encoded socket path.
        case httpUnix
        /// `https+unix`.
        case httpsUnix
        case other
    }

    /// The scheme the string starts with.
    package let scheme: Scheme
    /// Whether the string has an authority with a host that is not empty.
    package let hasHost: Bool

    /// Reads `text`, a URL's string.
    package init(_ text: String) {
        var text = text
        (scheme, hasHost) = text.withUTF8 { Self.read($0) }
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> (Scheme, Bool) {
        let (scheme, rest) = readScheme(bytes)
        // `//authority`, which ends at the path, the query or the fragment.
        let start = rest + 2
        guard start <= bytes.count, bytes[rest] == UInt8(ascii: "/"), bytes[rest + 1] == UInt8(ascii: "/") else {
            return (scheme, false)
        }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            end += 1
        }
        // The host follows the user information (up to the last `@`) and comes before the port.
        var host = start
        for index in start..<end where bytes[index] == UInt8(ascii: "@") { host = index + 1 }
        guard host < end else { return (scheme, false) }
        if bytes[host] == UInt8(ascii: "[") {
            return (scheme, host + 1 < end && bytes[host + 1] != UInt8(ascii: "]"))
        }
        return (scheme, bytes[host] != UInt8(ascii: ":"))
    }

    /// The scheme and where the rest begins: after the colon, or at the start when there is no scheme
    /// (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-` or `.`, up to the colon).
    private static func readScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> (Scheme, Int) {
        guard let first = bytes.first, isLetter(first) else { return (.other, 0) }
        var colon = 0
        while colon < bytes.count, bytes[colon] != UInt8(ascii: ":") {
            guard isSchemeByte(bytes[colon]) else { return (.other, 0) }
            colon += 1
        }
        guard colon < bytes.count else { return (.other, 0) }
        return (classify(UnsafeBufferPointer(rebasing: bytes[..<colon])), colon + 1)
    }

    private static func classify(_ name: UnsafeBufferPointer<UInt8>) -> Scheme {
        func spells(_ lowercase: StaticString) -> Bool {
            name.count == lowercase.utf8CodeUnitCount
                && lowercase.withUTF8Buffer { expected in name.elementsEqual(expected) { $0 | 0x20 == $1 } }
        }
        switch name.count {
        case 4 where spells("http"): return .http
        case 5 where spells("https"): return .https
        case 9 where spells("http+unix"): return .httpUnix
        case 10 where spells("https+unix"): return .httpsUnix
        default: return .other
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
