import Foundation

/// Reads an OpenStep (old-style ASCII) property list into a ``PropertyListValue``. Its values are strings,
/// data, arrays and dictionaries only: numbers, Booleans and dates are strings, as Foundation reads them.
///
/// - Strings: quoted with `"` or `'`, with the escapes `\a \b \f \n \r \t \v \\ \" \'`, `\U` and one to
///   four hex digits (a high surrogate must be followed by `\U` and its low surrogate), and octal `\0` to
///   `\177` (higher octal escapes, NeXTSTEP characters, are refused); any other escaped character stands
///   for itself; the text must be UTF-8. Unquoted: one or more of `A-Z a-z 0-9 _ $ + / : . -`.
/// - `( a, b )` arrays (a trailing comma is allowed), `{ key = value; }` dictionaries (keys are strings,
///   unique), `<0fa1 b2>` data (hex digits in pairs, white space between).
/// - White space, `//` line comments and `/* */` comments between tokens. One value, then only those.
struct OpenStepPropertyListParser: TextPropertyListReading {
    let bytes: [UInt8]
    private(set) var position = 0

    /// A parser of `bytes`.
    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The property list's value.
    ///
    /// - Throws: ``PropertyListParser/Failure`` (``PropertyListParser`` makes it a ``SluiceError``).
    mutating func parse() throws(PropertyListParser.Failure) -> PropertyListValue {
        position = startAfterByteOrderMark
        try skipSpaceAndComments()
        let value = try self.value(depth: 0)
        try skipSpaceAndComments()
        guard position == bytes.count else { throw invalid(at: position, "content after the property list") }
        return value
    }

    // MARK: Values

    private mutating func value(depth: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        guard position < bytes.count else { throw invalid(at: position, "the property list ends where a value should be") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try dictionary(depth: depth)
        case UInt8(ascii: "("): return try array(depth: depth)
        case UInt8(ascii: "<"): return .data(try data())
        default:
            guard let string = try string() else {
                throw invalid(at: position, "the byte 0x\(String(bytes[position], radix: 16, uppercase: true)) cannot start a value")
            }
            return .string(string)
        }
    }

    private mutating func array(depth: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        guard depth < PropertyListParser.maximumDepth else { throw tooDeep(at: position) }
        position += 1
        var elements: [PropertyListValue] = []
        while true {
            try skipSpaceAndComments()
            if at(")") { break }
            elements.append(try value(depth: depth + 1))
            try skipSpaceAndComments()
            if at(",") {
                position += 1
            } else if !at(")") {
                throw invalid(at: position, position < bytes.count ? "expected ',' or ')' in an array" : "an array is not closed")
            }
        }
        position += 1
        return .array(elements)
    }

    private mutating func dictionary(depth: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        guard depth < PropertyListParser.maximumDepth else { throw tooDeep(at: position) }
        position += 1
        var entries: [PropertyListValue.Entry] = []
        var keys: Set<String> = []
        while true {
            try skipSpaceAndComments()
            if at("}") { break }
            let keyStart = position
            guard position < bytes.count else { throw invalid(at: position, "a dictionary is not closed") }
            guard let key = try string() else { throw invalid(at: position, "a dictionary key must be a string") }
            try skipSpaceAndComments()
            guard at("=") else { throw invalid(at: position, "expected '=' after the key \(PropertyListParser.quoted(key))") }
            position += 1
            try skipSpaceAndComments()
            let value = try self.value(depth: depth + 1)
            try skipSpaceAndComments()
            guard at(";") else { throw invalid(at: position, "expected ';' after the value of \(PropertyListParser.quoted(key))") }
            position += 1
            guard keys.insert(key).inserted else {
                throw invalid(at: keyStart, "the dictionary key \(PropertyListParser.quoted(key)) appears twice")
            }
            entries.append(PropertyListValue.Entry(key: key, value: value))
        }
        position += 1
        return .dictionary(entries)
    }

    /// `<hex>` data.
    private mutating func data() throws(PropertyListParser.Failure) -> Data {
        let start = position
        position += 1
        var output: [UInt8] = []
        var high: UInt8?
        while true {
            guard position < bytes.count else { throw invalid(at: start, "data is not closed with '>'") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: ">") { break }
            if Self.isSpace(byte) { continue }
            guard let nibble = Self.hexDigit(byte) else {
                throw invalid(at: position - 1, "the byte 0x\(String(byte, radix: 16, uppercase: true)) in data is not a hex digit")
            }
            if let first = high {
                output.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { throw invalid(at: start, "data has an odd number of hex digits") }
        return Data(output)
    }

    /// The quoted or unquoted string at `position`, or `nil` when none starts there.
    private mutating func string() throws(PropertyListParser.Failure) -> String? {
        let start = position
        let first = bytes[position]
        if Self.isUnquoted(first) {
            while position < bytes.count, Self.isUnquoted(bytes[position]) { position += 1 }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
        guard first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") else { return nil }
        position += 1
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw invalid(at: start, "a quoted string is not closed") }
            let byte = bytes[position]
            position += 1
            if byte == first { break }
            if byte == UInt8(ascii: "\\") {
                try escape(into: &text)
            } else {
                text.append(byte)
            }
        }
        guard let string = String(validating: text, as: UTF8.self) else { throw invalid(at: start, "a quoted string is not UTF-8") }
        return string
    }

    /// Reads the escape after a backslash into `text`.
    private mutating func escape(into text: inout [UInt8]) throws(PropertyListParser.Failure) {
        let start = position - 1
        guard position < bytes.count else { throw invalid(at: start, "a quoted string is not closed") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "a"): text.append(0x07)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "v"): text.append(0x0B)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(byte - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[position]) {
                value = value * 8 + UInt32(bytes[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            guard value < 0x80 else {
                throw invalid(at: start, "the octal escape \\\(String(value, radix: 8)) is a NeXTSTEP character, which is not supported")
            }
            text.append(UInt8(value))
        case UInt8(ascii: "U"):
            let unit = try hexEscape(at: start)
            var scalarValue = UInt32(unit)
            if UTF16.isLeadSurrogate(unit) {
                guard at("\\U") else { throw invalid(at: start, "the escape \\U\(String(unit, radix: 16)) is an unpaired high surrogate") }
                position += 2
                let low = try hexEscape(at: position - 2)
                guard UTF16.isTrailSurrogate(low) else {
                    throw invalid(at: start, "the escape \\U\(String(unit, radix: 16)) is not followed by a low surrogate")
                }
                scalarValue = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
            } else if UTF16.isTrailSurrogate(unit) {
                throw invalid(at: start, "the escape \\U\(String(unit, radix: 16)) is an unpaired low surrogate")
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw invalid(at: start, "an escape that is not a character") }
            UTF8.encode(scalar) { text.append($0) }
        default:
            text.append(byte)
        }
    }

    /// The one to four hex digits after `\U`.
    private mutating func hexEscape(at start: Int) throws(PropertyListParser.Failure) -> UInt16 {
        var value: UInt16 = 0
        var digits = 0
        while digits < 4, position < bytes.count, let nibble = Self.hexDigit(bytes[position]) {
            value = value << 4 | UInt16(nibble)
            position += 1
            digits += 1
        }
        guard digits > 0 else { throw invalid(at: start, "\\U without hex digits") }
        return value
    }

    // MARK: Bytes

    private mutating func skipSpaceAndComments() throws(PropertyListParser.Failure) {
        while position < bytes.count {
            if Self.isSpace(bytes[position]) {
                position += 1
            } else if at("//") {
                while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            } else if at("/*") {
                let start = position
                position += 2
                while !at("*/") {
                    guard position < bytes.count else { throw invalid(at: start, "a comment is not closed") }
                    position += 1
                }
                position += 2
            } else {
                return
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    private static func isUnquoted(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."),
             UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
