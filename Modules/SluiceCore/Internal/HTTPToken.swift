/// The character rules of RFC 9110 for tokens (field names, methods) and field values.
enum HTTPToken {
    /// Whether `byte` may appear in a token: visible ASCII except the separators.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `string` is a non-empty token.
    static func isToken(_ string: some StringProtocol) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `byte` may not appear in a field value: NUL, CR, LF, and the other ASCII controls except
    /// horizontal tab, and DEL. Bytes of 0x80 and above (UTF-8) pass.
    static func isForbiddenValueByte(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7f
    }

    /// The first byte of `value` that may not appear in a field value (``isForbiddenValueByte(_:)``), if any.
    static func firstForbiddenValueByte(_ value: some StringProtocol) -> UInt8? {
        value.utf8.first(where: isForbiddenValueByte)
    }

    /// A readable name for a forbidden byte, for error messages.
    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0d: "CR"
        case 0x0a: "LF"
        case 0x00: "NUL"
        default: "0x" + String(byte, radix: 16, uppercase: true)
        }
    }
}
