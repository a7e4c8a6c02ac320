import Foundation

/// Escaping for text placed in XML and HTML.
enum MarkupText {
    /// `text` safe inside an XML or HTML element or a quoted attribute: `&`, `<`, `>`, `"` and `'` become
    /// references, and characters XML 1.0 forbids (control characters other than tab, line feed and
    /// carriage return, lone surrogates cannot occur in a Swift string, U+FFFE and U+FFFF) become a visible
    /// `\u{…}` so a report about hostile bytes stays well-formed.
    static func escaped(_ text: String) -> String { escaped(text, keepingBreaksInAttribute: false) }

    /// `text` escaped for an attribute that should stay on one line: line breaks and tabs become `&#10;`,
    /// `&#13;`, `&#9;` so XML parsers keep them instead of normalising them to spaces. Scalar by scalar,
    /// like ``escaped(_:)``: a line feed followed by a combining mark is one `Character`, which a
    /// `Character`-wise replacement left raw.
    static func attribute(_ text: String) -> String { escaped(text, keepingBreaksInAttribute: true) }

    private static func escaped(_ text: String, keepingBreaksInAttribute: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r":
                if keepingBreaksInAttribute {
                    result += "&#\(scalar.value);"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
