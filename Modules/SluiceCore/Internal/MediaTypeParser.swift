/// Parses `type/subtype *( OWS ";" OWS name=value )` with quoted-string values (RFC 9110 §8.3.1).
enum MediaTypeParser {
    static func parse(_ input: Substring) throws(SluiceError) -> MediaType {
        var scanner = Scanner(input)
        scanner.skipWhitespace()
        let type = scanner.scanToken()
        guard !type.isEmpty, scanner.consume("/") else { throw failure(input, "expected type/subtype") }
        let subtype = scanner.scanToken()
        guard !subtype.isEmpty else { throw failure(input, "missing subtype") }
        var parameters: [(name: String, value: String)] = []
        while true {
            scanner.skipWhitespace()
            if scanner.isAtEnd { break }
            guard scanner.consume(";") else { throw failure(input, "unexpected text after the subtype") }
            scanner.skipWhitespace()
            if scanner.isAtEnd { break }  // a trailing ";" is tolerated, as browsers do
            if scanner.consume(";") {  // so are empty parameters ("a/b;;c=d")
                scanner.back()
                continue
            }
            let name = scanner.scanToken()
            guard !name.isEmpty, scanner.consume("=") else { throw failure(input, "malformed parameter") }
            let value: String
            if scanner.peek == UInt8(ascii: "\"") {
                guard let quoted = scanner.scanQuotedString() else {
                    throw failure(input, "unterminated quoted parameter value")
                }
                value = quoted
            } else {
                value = scanner.scanToken()
                guard !value.isEmpty else { throw failure(input, "empty parameter value") }
            }
            parameters.append((name: name, value: value))
        }
        return try MediaType(type: type, subtype: subtype, parameters: parameters)
    }

    private static func failure(_ input: Substring, _ reason: String) -> SluiceError {
        SluiceError(.invalidMediaType, "invalid media type \(String(input).debugDescription): \(reason)")
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ input: Substring) { bytes = Array(input.utf8) }

        var isAtEnd: Bool { position >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[position] }

        mutating func back() { position -= 1 }

        mutating func skipWhitespace() {
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
        }

        mutating func consume(_ character: Unicode.Scalar) -> Bool {
            guard peek == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        mutating func scanToken() -> String {
            let start = position
            while let byte = peek, HTTPToken.isTokenByte(byte) { position += 1 }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// A quoted string with backslash escapes, the opening quote at the current position.
        mutating func scanQuotedString() -> String? {
            position += 1
            var value: [UInt8] = []
            while let byte = peek {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    value.append(escaped)
                    position += 1
                default:
                    value.append(byte)
                }
            }
            return nil
        }
    }
}
