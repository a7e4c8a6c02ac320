/// Parses `type/subtype *( OWS ";" OWS name=value )` with quoted-string values (RFC 9110 §8.3.1).
enum MediaTypeParser {
    static func parse(_ input: Substring) throws(SluiceError) -> MediaType {
        var input = input
        return try input.withUTF8 { bytes in Result { () throws(SluiceError) in try parse(bytes) } }.get()
    }

    private static func parse(_ input: UnsafeBufferPointer<UInt8>) throws(SluiceError) -> MediaType {
        var scanner = Scanner(bytes: input)
        scanner.skipWhitespace()
        let type = scanner.scanToken(lowercased: true)
        guard !type.isEmpty, scanner.consume("/") else { throw failure(input, "expected type/subtype") }
        let subtype = scanner.scanToken(lowercased: true)
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
            let name = scanner.scanToken(lowercased: true)
            guard !name.isEmpty, scanner.consume("=") else { throw failure(input, "malformed parameter") }
            let value: String
            if scanner.peek == UInt8(ascii: "\"") {
                guard let quoted = scanner.scanQuotedString() else {
                    throw failure(input, "unterminated quoted parameter value")
                }
                value = quoted
            } else {
                value = scanner.scanToken(lowercased: false)
                guard !value.isEmpty else { throw failure(input, "empty parameter value") }
            }
            parameters.append((name: name, value: value))
        }
        // Type, subtype and names are tokens, lowercased as they were scanned.
        return MediaType(checkedType: type, subtype: subtype, parameters: parameters)
    }

    private static func failure(_ input: UnsafeBufferPointer<UInt8>, _ reason: String) -> SluiceError {
        SluiceError(.invalidMediaType, "invalid media type \(String(decoding: input, as: UTF8.self).debugDescription): \(reason)")
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

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

        /// The token at the current position (empty when there is none); a token is ASCII, so
        /// lowercasing is per byte.
        mutating func scanToken(lowercased: Bool) -> String {
            let start = position
            while let byte = peek, HTTPToken.isTokenByte(byte) { position += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start..<position])
            guard lowercased, token.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
                return String(decoding: token, as: UTF8.self)
            }
            return String(unsafeUninitializedCapacity: token.count) { buffer in
                for (index, byte) in token.enumerated() {
                    buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                }
                return token.count
            }
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
