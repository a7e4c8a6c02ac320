import Foundation

/// Parses URL strings the caller wrote, keeping their bytes wherever a URL can hold them.
///
/// Foundation's `URL(string:)` on Linux percent-encodes the characters a URL cannot hold (`[`, `]`,
/// `|`, space, non-ASCII), and in a component that has one it also encodes every `%`, so the caller's
/// own escapes change meaning (`?q=a%20b|c` became `?q=a%2520b%7Cc`, a literal `%20`). Here the path,
/// query and fragment are made valid first: each byte a URL cannot hold there is percent-encoded once,
/// and everything else (escapes such as `%20` included) is left as written, so Foundation has nothing
/// to change. The scheme and authority are left to Foundation (IPv6 brackets, international hosts).
package enum URLText {
    /// The URL for `string`, resolved against `base` when given; `nil` when Foundation cannot parse it.
    package static func url(_ string: String, relativeTo base: URL? = nil) -> URL? {
        let escaped = escapingInvalidCharacters(string)
        return URL(string: escaped, relativeTo: base) ?? URL(string: string, relativeTo: base)
    }

    /// `string` with each byte its path, query and fragment cannot hold percent-encoded (RFC 3986: all
    /// but unreserved characters, sub-delimiters, `:`, `@`, `/`, `?`, one `#` before the fragment, and
    /// `%` followed by two hex digits).
    package static func escapingInvalidCharacters(_ string: String) -> String {
        let bytes = Array(string.utf8)
        let start = referenceStart(bytes)
        guard bytes[start...].contains(where: { !isAllowed($0) }) || hasInvalidPercentOrHash(bytes, from: start) else {
            return string
        }
        var output = Array(bytes[..<start])
        output.reserveCapacity(bytes.count + 16)
        var inFragment = false
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                if index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                    output.append(byte)
                } else {
                    appendEscaped(byte, to: &output)
                }
            } else if byte == UInt8(ascii: "#") {
                if inFragment { appendEscaped(byte, to: &output) } else { output.append(byte) }
                inFragment = true
            } else if isAllowed(byte) {
                output.append(byte)
            } else {
                appendEscaped(byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Where the path begins: after `scheme://authority` or `//authority`, else at the start (a
    /// relative reference, or a scheme without an authority).
    private static func referenceStart(_ bytes: [UInt8]) -> Int {
        var index = 0
        // A scheme: a letter, then letters, digits, `+`, `-`, `.`, then `:`.
        if let first = bytes.first, isLetter(first) {
            var cursor = 1
            while cursor < bytes.count, isLetter(bytes[cursor]) || isDigit(bytes[cursor])
                || bytes[cursor] == UInt8(ascii: "+") || bytes[cursor] == UInt8(ascii: "-") || bytes[cursor] == UInt8(ascii: ".")
            {
                cursor += 1
            }
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") { index = cursor + 1 }
        }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else {
            return index
        }
        index += 2
        while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"),
            bytes[index] != UInt8(ascii: "#")
        {
            index += 1
        }
        return index
    }

    private static func hasInvalidPercentOrHash(_ bytes: [UInt8], from start: Int) -> Bool {
        var hashes = 0
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return true }
            case UInt8(ascii: "#"):
                hashes += 1
                if hashes > 1 { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Whether `byte` may appear as it is in a path, query or fragment (`%` and `#` are handled apart).
    private static func isAllowed(_ byte: UInt8) -> Bool {
        if isLetter(byte) || isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),  // unreserved
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="),  // sub-delims
            UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"),
            UInt8(ascii: "%"), UInt8(ascii: "#"):
            return true
        default:
            return false
        }
    }

    private static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        let digits = Array("0123456789ABCDEF".utf8)
        output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
