/// Byte tests and conversions for the cookie grammar (RFC 6265 works on octets, so every check here does too).
enum CookieBytes {
    static let tab = UInt8(ascii: "\t")
    static let space = UInt8(ascii: " ")
    static let semicolon = UInt8(ascii: ";")
    static let equals = UInt8(ascii: "=")
    static let dot = UInt8(ascii: ".")
    static let slash = UInt8(ascii: "/")
    static let colon = UInt8(ascii: ":")

    /// SP or HTAB (RFC 6265's WSP).
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// `0`-`9`.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A control character other than HTAB: %x00-08, %x0A-1F, %x7F (RFC 6265bis §5.6 step 2).
    static func isControlExceptTab(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != tab) || byte == 0x7F }

    /// `byte` with `A`-`Z` mapped to `a`-`z`; every other byte unchanged.
    static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

    /// `text` with ASCII letters lowercased; every other byte unchanged.
    static func lowercased(_ text: String) -> String { String(decoding: text.utf8.map(lowercased), as: UTF8.self) }

    /// `bytes` without leading and trailing SP and HTAB.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isWhitespace(first) { slice.removeFirst() }
        while let last = slice.last, isWhitespace(last) { slice.removeLast() }
        return slice
    }

    /// Whether `bytes` equals `lowercaseASCII` with ASCII letters compared case-insensitively.
    static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercaseASCII: String) -> Bool {
        bytes.count == lowercaseASCII.utf8.count && zip(bytes, lowercaseASCII.utf8).allSatisfy { lowercased($0) == $1 }
    }

    /// Whether `bytes` starts with `lowercaseASCII`, ASCII letters compared case-insensitively.
    static func hasPrefixIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercaseASCII: String) -> Bool {
        bytes.count >= lowercaseASCII.utf8.count && zip(bytes, lowercaseASCII.utf8).allSatisfy { lowercased($0) == $1 }
    }

    /// The bytes as a string. Slices of a valid string cut at ASCII bytes are valid UTF-8, so nothing is replaced.
    static func string(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
