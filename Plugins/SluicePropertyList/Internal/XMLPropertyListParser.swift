import Foundation

/// Reads an XML property list into a ``PropertyListValue`` with a small tokenizer of its own, for the
/// subset of XML that property lists use. It never reads a DTD or an external entity.
///
/// - Prolog: an optional UTF-8 byte-order mark, the XML declaration (an `encoding` other than UTF-8 or
///   US-ASCII is refused), a `DOCTYPE` without an internal subset (skipped; one with `[` is refused),
///   comments and processing instructions, which are skipped wherever they appear.
/// - The root is `<plist>` holding one value, or the value itself. Attributes are read and ignored.
/// - Values: `dict` (`key` then a value, keys unique), `array`, `string`, `integer` (decimal or `0x`
///   hexadecimal, signed, from `Int64.min` to `UInt64.max`), `real` (what `Double(String)` reads, so `nan`
///   and `+infinity` too), `true`, `false`, `date` (`yyyy-MM-ddTHH:mm:ssZ`, years 0000 to 9999, proleptic
///   Gregorian), `data` (base64, white space allowed). `<string/>`, `<array/>`, `<dict/>`, `<data/>` and
///   `<key/>` are empty; `<true/>` and `<false/>` are the Booleans.
/// - Text: the entities `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, character references `&#N;` and
///   `&#xN;` naming a Unicode scalar other than U+0000, and CDATA sections; text must be UTF-8. Other
///   entities are refused (there is no DTD to define them). Line ends are kept as they are.
struct XMLPropertyListParser: TextPropertyListReading {
    /// A start tag: the element's name, whether it was written `<name/>`, and where it starts.
    private struct Tag {
        var name: String
        var isEmpty: Bool
        var start: Int
    }

    let bytes: [UInt8]
    private(set) var position = 0

    /// A parser of `bytes`.
    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The property list's value.
    ///
    /// - Throws: ``PropertyListParser/Failure`` (``PropertyListParser`` makes it a ``SluiceError``).
    mutating func parse() throws(PropertyListParser.Failure) -> PropertyListValue {
        position = startAfterByteOrderMark
        try skipProlog()
        let root = try startTag()
        let value: PropertyListValue
        if root.name == "plist" {
            guard !root.isEmpty else { throw invalid(at: root.start, "<plist/> holds no value") }
            try skipMisc()
            guard !at("</") else { throw invalid(at: position, "<plist> holds no value") }
            value = try self.value(try startTag(), depth: 0)
            try skipMisc()
            try endTag("plist")
        } else {
            value = try self.value(root, depth: 0)
        }
        try skipMisc()
        guard position == bytes.count else { throw invalid(at: position, "content after the property list") }
        return value
    }

    // MARK: Values

    private mutating func value(_ tag: Tag, depth: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        switch tag.name {
        case "dict": return try dictionary(tag, depth: depth)
        case "array": return try array(tag, depth: depth)
        case "string": return .string(try string(of: tag))
        case "integer": return try integer(try text(of: tag), at: tag.start)
        case "real":
            let text = trimmed(try text(of: tag))
            guard !text.isEmpty, text.count <= 1_000, let value = Double(String(decoding: text, as: UTF8.self)) else {
                throw invalid(at: tag.start, "the <real> \(PropertyListParser.quoted(String(decoding: text, as: UTF8.self))) is not a number")
            }
            return .real(value)
        case "date": return .date(try date(Array(trimmed(try text(of: tag))), at: tag.start))
        case "data": return .data(try base64(try text(of: tag), at: tag.start))
        case "true", "false":
            if !tag.isEmpty {
                try skipMisc()
                try endTag(tag.name)
            }
            return .bool(tag.name == "true")
        case "key": throw invalid(at: tag.start, "a <key> outside a dictionary")
        default: throw invalid(at: tag.start, "<\(PropertyListParser.shortened(tag.name))> is not a property-list element")
        }
    }

    private mutating func array(_ tag: Tag, depth: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        guard depth < PropertyListParser.maximumDepth else { throw tooDeep(at: tag.start) }
        var elements: [PropertyListValue] = []
        if tag.isEmpty { return .array(elements) }
        while true {
            try skipMisc()
            if at("</") { break }
            elements.append(try value(try startTag(), depth: depth + 1))
        }
        try endTag("array")
        return .array(elements)
    }

    private mutating func dictionary(_ tag: Tag, depth: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        guard depth < PropertyListParser.maximumDepth else { throw tooDeep(at: tag.start) }
        var entries: [PropertyListValue.Entry] = []
        if tag.isEmpty { return .dictionary(entries) }
        var keys: Set<String> = []
        while true {
            try skipMisc()
            if at("</") { break }
            let keyTag = try startTag()
            guard keyTag.name == "key" else {
                throw invalid(at: keyTag.start, "<\(PropertyListParser.shortened(keyTag.name))> where a dictionary needs a <key>")
            }
            let key = try string(of: keyTag)
            try skipMisc()
            guard !at("</") else { throw invalid(at: position, "the key \(PropertyListParser.quoted(key)) has no value") }
            let value = try self.value(try startTag(), depth: depth + 1)
            guard keys.insert(key).inserted else {
                throw invalid(at: keyTag.start, "the dictionary key \(PropertyListParser.quoted(key)) appears twice")
            }
            entries.append(PropertyListValue.Entry(key: key, value: value))
        }
        try endTag("dict")
        return .dictionary(entries)
    }

    /// The text of `tag`'s element as a string.
    private mutating func string(of tag: Tag) throws(PropertyListParser.Failure) -> String {
        let content = position
        guard let string = String(validating: try text(of: tag), as: UTF8.self) else {
            throw invalid(at: content, "the text of <\(tag.name)> is not UTF-8")
        }
        return string
    }

    /// The bytes of `tag`'s text, entities replaced, comments and processing instructions left out, up to
    /// and including its end tag. Elements inside are refused.
    private mutating func text(of tag: Tag) throws(PropertyListParser.Failure) -> [UInt8] {
        var text: [UInt8] = []
        if tag.isEmpty { return text }
        while true {
            guard position < bytes.count else { throw invalid(at: tag.start, "<\(tag.name)> is not closed") }
            switch bytes[position] {
            case UInt8(ascii: "<"):
                if at("</") {
                    try endTag(tag.name)
                    return text
                } else if at("<![CDATA[") {
                    guard let end = find("]]>", from: position + 9) else { throw invalid(at: position, "a CDATA section is not closed") }
                    text += bytes[(position + 9)..<end]
                    position = end + 3
                } else if at("<!--") || at("<?") {
                    try skipCommentOrInstruction()
                } else {
                    throw invalid(at: position, "an element inside <\(tag.name)>")
                }
            case UInt8(ascii: "&"):
                try entity(into: &text)
            default:
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<"), bytes[position] != UInt8(ascii: "&") {
                    position += 1
                }
                text += bytes[start..<position]
            }
        }
    }

    /// Reads the entity or character reference at `position` into `text`.
    private mutating func entity(into text: inout [UInt8]) throws(PropertyListParser.Failure) {
        let start = position
        var end = position + 1
        while end < bytes.count, end - start <= 32, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw invalid(at: start, "an entity reference without its ';'")
        }
        let name = bytes[(start + 1)..<end]
        position = end + 1
        switch String(decoding: name, as: UTF8.self) {
        case "amp": text.append(UInt8(ascii: "&"))
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "quot": text.append(UInt8(ascii: "\""))
        case "apos": text.append(UInt8(ascii: "'"))
        default:
            guard name.first == UInt8(ascii: "#") else {
                throw invalid(at: start, "the entity &\(String(decoding: name, as: UTF8.self)); is not defined (no DTD is read)")
            }
            var digits = name.dropFirst()
            var radix: UInt32 = 10
            if digits.first == UInt8(ascii: "x") {
                radix = 16
                digits = digits.dropFirst()
            }
            var value: UInt32 = 0
            for digit in digits {
                guard let digitValue = Self.digit(digit, radix: radix) else {
                    throw invalid(at: start, "the character reference &\(String(decoding: name, as: UTF8.self)); is malformed")
                }
                value = value * radix + digitValue
                guard value <= 0x10FFFF else { throw invalid(at: start, "the character reference is past U+10FFFF") }
            }
            guard !digits.isEmpty, value != 0, let scalar = Unicode.Scalar(value) else {
                throw invalid(at: start, "&\(String(decoding: name, as: UTF8.self)); is not a valid character")
            }
            UTF8.encode(scalar) { text.append($0) }
        }
    }

    // MARK: Scalars

    private func integer(_ text: [UInt8], at offset: Int) throws(PropertyListParser.Failure) -> PropertyListValue {
        var digits = trimmed(text)[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        var radix: UInt64 = 10
        if digits.starts(with: [UInt8(ascii: "0"), UInt8(ascii: "x")]) || digits.starts(with: [UInt8(ascii: "0"), UInt8(ascii: "X")]) {
            radix = 16
            digits = digits.dropFirst(2)
        }
        let spelled = PropertyListParser.quoted(String(decoding: text, as: UTF8.self))
        guard !digits.isEmpty else { throw invalid(at: offset, "the <integer> \(spelled) has no digits") }
        var magnitude: UInt64 = 0
        for digit in digits {
            guard let value = Self.digit(digit, radix: UInt32(radix)) else {
                throw invalid(at: offset, "the <integer> \(spelled) is not a number")
            }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(value))
            guard !overflow, !carry else { throw invalid(at: offset, "the <integer> \(spelled) is outside the 64-bit range") }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else {
                throw invalid(at: offset, "the <integer> \(spelled) is outside the 64-bit range")
            }
            return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude)
    }

    /// Seconds since 2001-01-01T00:00:00Z of `yyyy-MM-ddTHH:mm:ssZ`.
    private func date(_ text: [UInt8], at offset: Int) throws(PropertyListParser.Failure) -> Double {
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard let digit = Self.digit(text[index], radix: 10) else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        let spelled = PropertyListParser.quoted(String(decoding: text, as: UTF8.self))
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")]
        guard text.count == 20, separators.allSatisfy({ text[$0.0] == $0.1.asciiValue }),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { throw invalid(at: offset, "the <date> \(spelled) is not yyyy-MM-ddTHH:mm:ssZ") }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...monthDays[month - 1]).contains(day), hour < 24, minute < 60, second < 60 else {
            throw invalid(at: offset, "the <date> \(spelled) is not a valid date")
        }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double((days - 11_323) * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// The bytes of base64 `text`; white space is skipped, `=` padding is optional.
    private func base64(_ text: [UInt8], at offset: Int) throws(PropertyListParser.Failure) -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var bits = 0
        var symbols = 0
        var padding = 0
        for byte in text where !Self.isSpace(byte) {
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { throw invalid(at: offset, "<data> has more than two '=' of base64 padding") }
                continue
            }
            guard padding == 0 else { throw invalid(at: offset, "<data> goes on after base64 padding") }
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            default: throw invalid(at: offset, "<data> holds the byte 0x\(String(byte, radix: 16, uppercase: true)), which is not base64")
            }
            symbols += 1
            accumulator = (accumulator << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard symbols % 4 != 1, padding == 0 || (symbols + padding) % 4 == 0 else {
            throw invalid(at: offset, "<data> is not whole base64 (\(symbols) symbols, \(padding) padding)")
        }
        return Data(output)
    }

    // MARK: Markup

    /// Skips white space, comments, processing instructions and a DOCTYPE before the root element.
    private mutating func skipProlog() throws(PropertyListParser.Failure) {
        while true {
            try skipMisc()
            guard at("<!DOCTYPE") else { return }
            let start = position
            var quote: UInt8?
            position += 9
            while true {
                guard position < bytes.count else { throw invalid(at: start, "the DOCTYPE is not closed") }
                let byte = bytes[position]
                position += 1
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    throw invalid(at: position - 1, "DOCTYPE internal subsets are not supported")
                } else if byte == UInt8(ascii: ">") {
                    break
                }
            }
        }
    }

    /// Skips white space, comments and processing instructions.
    private mutating func skipMisc() throws(PropertyListParser.Failure) {
        while true {
            skipSpace()
            guard at("<!--") || at("<?") else { return }
            try skipCommentOrInstruction()
        }
    }

    /// Skips the comment or processing instruction at `position`, checking the XML declaration's encoding.
    private mutating func skipCommentOrInstruction() throws(PropertyListParser.Failure) {
        if at("<!--") {
            guard let end = find("-->", from: position + 4) else { throw invalid(at: position, "a comment is not closed") }
            position = end + 3
            return
        }
        guard let end = find("?>", from: position + 2) else { throw invalid(at: position, "a processing instruction is not closed") }
        if at("<?xml"), position + 5 == end || Self.isSpace(bytes[position + 5]) {
            try checkDeclaration(bytes[(position + 5)..<end], at: position)
        }
        position = end + 2
    }

    /// Refuses an XML declaration naming an encoding other than UTF-8 or US-ASCII.
    private func checkDeclaration(_ declaration: ArraySlice<UInt8>, at offset: Int) throws(PropertyListParser.Failure) {
        let text = String(decoding: declaration, as: UTF8.self)
        guard let range = text.range(of: "encoding") else { return }
        var rest = text[range.upperBound...].drop { $0.isWhitespace }
        guard rest.first == "=" else { return }
        rest = rest.dropFirst().drop { $0.isWhitespace }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let name = rest.dropFirst().prefix { $0 != quote }.lowercased()
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name) else {
            throw invalid(at: offset, "the encoding \(PropertyListParser.quoted(name)) is not supported (only UTF-8)")
        }
    }

    /// The start tag at `position`.
    private mutating func startTag() throws(PropertyListParser.Failure) -> Tag {
        let start = position
        guard at("<"), position + 1 < bytes.count, Self.isNameStart(bytes[position + 1]) else {
            throw invalid(at: start, position < bytes.count ? "expected an element" : "the property list ends early")
        }
        position += 1
        let name = String(decoding: readName(), as: UTF8.self)
        while true {
            let spaced = skipSpace()
            guard position < bytes.count else { throw invalid(at: start, "the tag <\(PropertyListParser.shortened(name))> is not closed") }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                return Tag(name: name, isEmpty: false, start: start)
            }
            if at("/>") {
                position += 2
                return Tag(name: name, isEmpty: true, start: start)
            }
            guard spaced, Self.isNameStart(bytes[position]) else {
                throw invalid(at: position, "unexpected byte in the tag <\(PropertyListParser.shortened(name))>")
            }
            _ = readName()
            skipSpace()
            guard at("=") else { throw invalid(at: position, "an attribute without '='") }
            position += 1
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw invalid(at: position, "an attribute value without quotes")
            }
            let quote = bytes[position]
            let valueStart = position
            position += 1
            while position < bytes.count, bytes[position] != quote {
                guard bytes[position] != UInt8(ascii: "<") else { throw invalid(at: position, "'<' in an attribute value") }
                position += 1
            }
            guard position < bytes.count else { throw invalid(at: valueStart, "an attribute value is not closed") }
            position += 1
        }
    }

    /// Reads `</name>`, with optional white space before `>`.
    private mutating func endTag(_ name: String) throws(PropertyListParser.Failure) {
        let start = position
        guard at("</"), position + 2 < bytes.count, Self.isNameStart(bytes[position + 2]) else {
            throw invalid(at: start, position < bytes.count ? "expected </\(name)>" : "the property list ends before </\(name)>")
        }
        position += 2
        let found = String(decoding: readName(), as: UTF8.self)
        skipSpace()
        guard found == name, at(">") else {
            throw invalid(at: start, "expected </\(name)>, found </\(PropertyListParser.shortened(found))>")
        }
        position += 1
    }

    private mutating func readName() -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count, Self.isNameCharacter(bytes[position]) { position += 1 }
        return bytes[start..<position]
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    /// Where `needle` next starts at or after `start`.
    private func find(_ needle: StaticString, from start: Int) -> Int? {
        needle.withUTF8Buffer { buffer -> Int? in
            guard let first = buffer.first, start <= bytes.count - buffer.count else { return nil }
            var index = start
            while index <= bytes.count - buffer.count {
                if bytes[index] == first, (1..<buffer.count).allSatisfy({ bytes[index + $0] == buffer[$0] }) { return index }
                index += 1
            }
            return nil
        }
    }

    private func trimmed(_ text: [UInt8]) -> ArraySlice<UInt8> {
        guard let first = text.firstIndex(where: { !Self.isSpace($0) }), let last = text.lastIndex(where: { !Self.isSpace($0) }) else {
            return []
        }
        return text[first...last]
    }

    private static func digit(_ byte: UInt8, radix: UInt32) -> UInt32? {
        let value: UInt32
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt32(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt32(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
    }

    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-")
    }
}
