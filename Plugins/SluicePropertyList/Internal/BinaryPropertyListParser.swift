import Foundation

/// Reads a binary property list (`bplist00`) into a ``PropertyListValue``, checking every offset, length,
/// count and reference against the bytes it has.
///
/// Layout: the 8-byte header, the objects, a table of each object's offset, and a 32-byte trailer (offset
/// size, reference size, object count, top object, offset-table offset). The trailer must describe an
/// offset table lying between the objects and the trailer, with sizes 1 to 8, at least one object, and a
/// top object among them; each object lies between the header and the offset table, and each reference
/// names an object.
///
/// What it reads: `false`, `true`, integers of 1, 2 and 4 bytes (unsigned), 8 bytes (signed) and 16
/// bytes (accepted when the value fits in `Int64` or `UInt64`), reals of 4 and 8 bytes, dates (finite),
/// data, ASCII strings (bytes below 0x80), UTF-16BE strings (valid surrogate pairs), arrays, and
/// dictionaries whose keys are strings, unique. An object reached by several references is read once and
/// shared.
///
/// What it refuses (``SluiceError/Code/propertyListInvalidData`` in the end): nulls and fill bytes as objects,
/// UIDs (they belong to keyed archives, not property lists), sets (XML plists have none, and Foundation
/// crashes bridging them), unknown markers, an object that contains itself (a reference cycle), nesting
/// and value counts past ``PropertyListParser``'s limits, duplicate keys, and anything that points
/// outside the bytes.
struct BinaryPropertyListParser {
    /// A read object, with its height (0 for a scalar, 1 + the highest element's for a collection), the
    /// number of values in its tree and the bytes of its strings and data, so that a shared object reached
    /// again is held to the limits.
    private struct Parsed {
        var value: PropertyListValue
        var height = 0
        var size = 1
        var payload = 0
    }

    /// An array or dictionary being read: its references (a dictionary's keys, then its values), the
    /// elements read so far and its running totals. The parser keeps these on a stack of its own rather
    /// than recursing, so hostile nesting cannot exhaust the thread's stack whatever its size.
    private struct Frame {
        let start: Int
        let depth: Int
        let isDictionary: Bool
        let references: [Int]
        /// Where the references start, for error messages.
        let contents: Int
        /// How many references have been followed.
        var next = 0
        var elements: [PropertyListValue] = []
        var entries: [PropertyListValue.Entry] = []
        var keys: Set<String> = []
        /// The key read, waiting for its value.
        var key: String?
        var height = 0
        var size = 1
        var payload = 0
    }

    private let bytes: [UInt8]
    private let valueLimit: Int
    private let payloadLimit: Int
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var topObject = 0
    /// Where the offset table starts: the end of the object area.
    private var objectsEnd = 0
    /// The objects read, by offset (two references may name one object, two objects one offset).
    private var parsed: [Int: Parsed] = [:]
    /// The offsets of the collections being read, from the top object down: reaching one again is a cycle.
    private var open: Set<Int> = []
    private var valueCount = 0
    private var payloadCount = 0

    /// A parser of `bytes`, which start with `bplist00`.
    init(bytes: [UInt8]) {
        self.bytes = bytes
        valueLimit = PropertyListParser.maximumValueCount(byteCount: bytes.count)
        payloadLimit = PropertyListParser.maximumPayloadCount(byteCount: bytes.count)
    }

    /// The top object.
    ///
    /// - Throws: ``PropertyListParser/Failure`` (``PropertyListParser`` makes it a ``SluiceError``).
    mutating func parse() throws(PropertyListParser.Failure) -> PropertyListValue {
        try readTrailer()
        var stack: [Frame] = []
        var done = try visit(topObject, depth: 0, from: bytes.count - 16, stack: &stack)
        while true {
            if let value = done {
                guard !stack.isEmpty else { return value.value }
                try accept(value, into: &stack[stack.count - 1])
                done = nil
            }
            let top = stack.count - 1
            let step = stack[top].next
            if step < stack[top].references.count {
                stack[top].next += 1
                // A dictionary's references are read key, value, key, value…
                let slot = !stack[top].isDictionary ? step : step.isMultiple(of: 2) ? step / 2 : stack[top].references.count / 2 + step / 2
                let reference = stack[top].references[slot]
                let site = stack[top].contents + slot * referenceSize
                if stack[top].isDictionary, step.isMultiple(of: 2) {
                    let keyStart = try offset(of: reference)
                    guard bytes[keyStart] >> 4 == 0x5 || bytes[keyStart] >> 4 == 0x6 else {
                        throw invalid(at: site, "dictionary key \(step / 2) is \(kind(of: bytes[keyStart])), not a string")
                    }
                }
                done = try visit(reference, depth: stack[top].depth + 1, from: site, stack: &stack)
                continue
            }
            let frame = stack.removeLast()
            open.remove(frame.start)
            let value = Parsed(
                value: frame.isDictionary ? .dictionary(frame.entries) : .array(frame.elements), height: frame.height + 1,
                size: frame.size, payload: frame.payload)
            parsed[frame.start] = value
            done = value
        }
    }

    // MARK: Trailer and offsets

    private mutating func readTrailer() throws(PropertyListParser.Failure) {
        guard bytes.count >= 8 + 1 + 1 + 32 else {
            throw invalid(at: bytes.count, "\(bytes.count) bytes cannot hold the header, an object, an offset and the 32-byte trailer")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize) else { throw invalid(at: trailer + 6, "the offset size \(offsetSize) is not 1 to 8") }
        guard (1...8).contains(referenceSize) else {
            throw invalid(at: trailer + 7, "the object reference size \(referenceSize) is not 1 to 8")
        }
        let count = integer(at: trailer + 8, size: 8)
        let top = integer(at: trailer + 16, size: 8)
        let tableOffset = integer(at: trailer + 24, size: 8)
        guard count >= 1 else { throw invalid(at: trailer + 8, "the trailer gives no objects") }
        let (tableSize, sizeOverflow) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
        let (tableEnd, endOverflow) = tableOffset.addingReportingOverflow(tableSize)
        guard !sizeOverflow, !endOverflow, tableOffset >= 9, tableEnd <= UInt64(trailer) else {
            throw invalid(at: trailer + 24, "the offset table (\(count) offsets of \(offsetSize) bytes at byte \(tableOffset)) does not lie between the objects and the trailer at byte \(trailer)")
        }
        guard referenceSize == 8 || count <= UInt64(1) << UInt64(8 * referenceSize) else {
            throw invalid(at: trailer + 7, "\(count) objects cannot all be named by \(referenceSize)-byte references")
        }
        guard top < count else { throw invalid(at: trailer + 16, "the top object \(top) is not one of the \(count) objects") }
        // All three fit in Int: they are below `trailer`.
        objectCount = Int(count)
        topObject = Int(top)
        objectsEnd = Int(tableOffset)
    }

    /// Where object `reference` starts.
    private func offset(of reference: Int) throws(PropertyListParser.Failure) -> Int {
        let entry = objectsEnd + reference * offsetSize  // Inside the table: reference < objectCount.
        let value = integer(at: entry, size: offsetSize)
        guard value >= 8, value < UInt64(objectsEnd) else {
            throw invalid(at: entry, "object \(reference) has the offset \(value), outside the objects (bytes 8 to \(objectsEnd - 1))")
        }
        return Int(value)
    }

    // MARK: Objects

    /// Object `reference`, at `depth` in the tree (0 for the top object); `site` is the byte that names it,
    /// for error messages. A scalar, or an object read before, is returned; a new array or dictionary is
    /// pushed on `stack` to be read, and `nil` returned.
    private mutating func visit(_ reference: Int, depth: Int, from site: Int, stack: inout [Frame]) throws(PropertyListParser.Failure) -> Parsed? {
        let start = try offset(of: reference)
        if let done = parsed[start] {
            guard depth + done.height <= PropertyListParser.maximumDepth else {
                throw invalid(at: site, "object \(reference) nests arrays and dictionaries more than \(PropertyListParser.maximumDepth) deep")
            }
            try count(done.size, payload: done.payload, at: site)
            return done
        }
        guard !open.contains(start) else {
            throw invalid(at: site, "object \(reference) contains itself (a reference cycle)")
        }
        let marker = bytes[start]
        try count(1, payload: 0, at: start)
        guard marker >> 4 == 0xA || marker >> 4 == 0xD else {
            let result = try scalar(at: start)
            parsed[start] = result
            return result
        }
        guard depth < PropertyListParser.maximumDepth else {
            throw invalid(at: start, "arrays and dictionaries nest more than \(PropertyListParser.maximumDepth) deep")
        }
        let isDictionary = marker >> 4 == 0xD
        let (length, contents) = try lengthAndContents(start: start, low: marker & 0x0F)
        let (referenceCount, overflow) = length.multipliedReportingOverflow(by: isDictionary ? 2 : 1)
        guard !overflow else { throw invalid(at: start, "a dictionary of \(length) entries runs past the objects") }
        var frame = Frame(
            start: start, depth: depth, isDictionary: isDictionary,
            references: try referenceList(count: referenceCount, at: contents, for: start), contents: contents)
        let capacity = min(length, valueLimit - valueCount)
        if isDictionary { frame.entries.reserveCapacity(capacity) } else { frame.elements.reserveCapacity(capacity) }
        open.insert(start)
        stack.append(frame)
        return nil
    }

    /// Adds a read element (or a dictionary's key or value) to `frame`.
    private func accept(_ element: Parsed, into frame: inout Frame) throws(PropertyListParser.Failure) {
        if !frame.isDictionary {
            frame.elements.append(element.value)
        } else if let key = frame.key {
            frame.entries.append(PropertyListValue.Entry(key: key, value: element.value))
            frame.key = nil
        } else {
            let index = frame.next / 2
            guard case .string(let name) = element.value else {
                throw invalid(at: frame.contents + index * referenceSize, "dictionary key \(index) is not a string")
            }
            guard frame.keys.insert(name).inserted else {
                throw invalid(at: frame.contents + index * referenceSize, "the dictionary key \(PropertyListParser.quoted(name)) appears twice")
            }
            frame.key = name
        }
        frame.height = max(frame.height, element.height)
        frame.size += element.size
        frame.payload += element.payload
    }

    /// The scalar object at `start`, its marker neither an array's nor a dictionary's.
    private mutating func scalar(at start: Int) throws(PropertyListParser.Failure) -> Parsed {
        let marker = bytes[start]
        let low = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return Parsed(value: .bool(false))
            case 0x09: return Parsed(value: .bool(true))
            case 0x00: throw invalid(at: start, "null objects are not supported")
            case 0x0F: throw invalid(at: start, "a fill byte (0x0F) is not an object")
            default: throw invalid(at: start, "unknown object marker \(hex(marker))")
            }
        case 0x1: return Parsed(value: try integerObject(at: start, low: low))
        case 0x2:
            guard low == 2 || low == 3 else { throw invalid(at: start, "a real of \(1 << Int(low)) bytes (only 4 and 8)") }
            try need(start + 1, low == 2 ? 4 : 8, for: start)
            let value = low == 2
                ? Double(Float(bitPattern: UInt32(integer(at: start + 1, size: 4))))
                : Double(bitPattern: integer(at: start + 1, size: 8))
            return Parsed(value: .real(value))
        case 0x3:
            guard marker == 0x33 else { throw invalid(at: start, "unknown object marker \(hex(marker)) (a date is 0x33)") }
            try need(start + 1, 8, for: start)
            let seconds = Double(bitPattern: integer(at: start + 1, size: 8))
            guard seconds.isFinite else { throw invalid(at: start, "a date that is not a finite number (\(seconds))") }
            return Parsed(value: .date(seconds))
        case 0x4:
            let (length, contents) = try lengthAndContents(start: start, low: low)
            try need(contents, length, for: start)
            try count(0, payload: length, at: start)
            return Parsed(value: .data(Data(bytes[contents..<contents + length])), payload: length)
        case 0x5, 0x6:
            let (length, contents) = try lengthAndContents(start: start, low: low)
            let (byteCount, overflow) = length.multipliedReportingOverflow(by: marker >> 4 == 0x5 ? 1 : 2)
            guard !overflow else { throw invalid(at: start, "a string of \(length) characters runs past the objects") }
            try need(contents, byteCount, for: start)
            try count(0, payload: byteCount, at: start)
            return Parsed(value: .string(try string(ascii: marker >> 4 == 0x5, length: length, contents: contents)), payload: byteCount)
        case 0x8:
            throw invalid(at: start, "UID objects are not supported (they belong to keyed archives)")
        case 0xC:
            throw invalid(at: start, "sets are not supported (marker \(hex(marker))): XML property lists have none")
        default:
            throw invalid(at: start, "unknown object marker \(hex(marker))")
        }
    }

    private func integerObject(at start: Int, low: UInt8) throws(PropertyListParser.Failure) -> PropertyListValue {
        guard low <= 4 else { throw invalid(at: start, "an integer of 2^\(low) bytes (only 1, 2, 4, 8 and 16)") }
        let size = 1 << Int(low)
        try need(start + 1, size, for: start)
        switch size {
        case 1, 2, 4: return .integer(Int64(integer(at: start + 1, size: size)))
        case 8: return .integer(Int64(bitPattern: integer(at: start + 1, size: 8)))
        default:
            let high = integer(at: start + 1, size: 8)
            let lowWord = integer(at: start + 9, size: 8)
            if high == 0 {
                return lowWord <= UInt64(Int64.max) ? .integer(Int64(lowWord)) : .unsignedInteger(lowWord)
            }
            if high == UInt64.max, lowWord > UInt64(Int64.max) { return .integer(Int64(bitPattern: lowWord)) }
            throw invalid(at: start, "a 16-byte integer outside the 64-bit range")
        }
    }

    /// The ASCII or UTF-16BE string of `length` characters at `contents`, known to lie inside the objects.
    private func string(ascii: Bool, length: Int, contents: Int) throws(PropertyListParser.Failure) -> String {
        if ascii {
            let text = bytes[contents..<contents + length]
            if let bad = text.firstIndex(where: { $0 >= 0x80 }) {
                throw invalid(at: bad, "the byte \(hex(bytes[bad])) in an ASCII string")
            }
            return String(decoding: text, as: UTF8.self)
        }
        var units: [UInt16] = []
        units.reserveCapacity(length)
        var index = 0
        while index < length {
            let unit = UInt16(integer(at: contents + 2 * index, size: 2))
            if UTF16.isLeadSurrogate(unit) {
                guard index + 1 < length, UTF16.isTrailSurrogate(UInt16(integer(at: contents + 2 * index + 2, size: 2))) else {
                    throw invalid(at: contents + 2 * index, "an unpaired UTF-16 high surrogate \(hex(unit))")
                }
                units.append(unit)
                units.append(UInt16(integer(at: contents + 2 * index + 2, size: 2)))
                index += 2
                continue
            }
            guard !UTF16.isTrailSurrogate(unit) else {
                throw invalid(at: contents + 2 * index, "an unpaired UTF-16 low surrogate \(hex(unit))")
            }
            units.append(unit)
            index += 1
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// `count` object references starting at `start`, each checked to name an object.
    private func referenceList(count: Int, at start: Int, for object: Int) throws(PropertyListParser.Failure) -> [Int] {
        let (byteCount, overflow) = count.multipliedReportingOverflow(by: referenceSize)
        guard !overflow else { throw invalid(at: object, "a collection of \(count) references runs past the objects") }
        try need(start, byteCount, for: object)
        var references: [Int] = []
        references.reserveCapacity(count)
        for index in 0..<count {
            let site = start + index * referenceSize
            let reference = integer(at: site, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw invalid(at: site, "the object reference \(reference) is not one of the \(objectCount) objects")
            }
            references.append(Int(reference))
        }
        return references
    }

    // MARK: Bytes

    /// The length of the data, string or collection object at `start` (its marker's low nibble, or the
    /// integer after the marker when that is 0xF) and where its contents start.
    private func lengthAndContents(start: Int, low: UInt8) throws(PropertyListParser.Failure) -> (length: Int, contents: Int) {
        if low != 0x0F { return (Int(low), start + 1) }
        try need(start + 1, 1, for: start)
        let marker = bytes[start + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw invalid(at: start + 1, "the length of the object at byte \(start) is \(kind(of: marker)), not an integer of 1 to 8 bytes")
        }
        let size = 1 << Int(marker & 0x0F)
        try need(start + 2, size, for: start)
        let length = integer(at: start + 2, size: size)
        guard length <= UInt64(objectsEnd) else {
            throw invalid(at: start + 1, "the length \(Int64(bitPattern: length)) runs past the objects")
        }
        return (Int(length), start + 2 + size)
    }

    /// Throws unless `count` bytes from `start` lie inside the object area (the object starts at `object`).
    private func need(_ start: Int, _ count: Int, for object: Int) throws(PropertyListParser.Failure) {
        guard start <= objectsEnd, count <= objectsEnd - start else {
            throw invalid(at: object, "the object runs past the end of the objects (byte \(objectsEnd)): it needs \(count) bytes from byte \(start)")
        }
    }

    /// The big-endian unsigned integer of `size` (1 to 8) bytes at `offset`, known to be inside `bytes`.
    private func integer(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value
    }

    /// Adds `values` to the count of values read and `payload` to the bytes of strings and data read,
    /// refusing counts past the limits.
    private mutating func count(_ values: Int, payload: Int, at site: Int) throws(PropertyListParser.Failure) {
        let (total, overflow) = valueCount.addingReportingOverflow(values)
        guard !overflow, total <= valueLimit else {
            throw invalid(at: site, "more than \(valueLimit) values for \(bytes.count) bytes (shared objects expand too far)")
        }
        let (bytesTotal, bytesOverflow) = payloadCount.addingReportingOverflow(payload)
        guard !bytesOverflow, bytesTotal <= payloadLimit else {
            throw invalid(at: site, "more than \(payloadLimit) bytes of strings and data for \(bytes.count) bytes (shared or overlapping objects expand too far)")
        }
        valueCount = total
        payloadCount = bytesTotal
    }

    /// What an object with `marker` is, for error messages.
    private func kind(of marker: UInt8) -> String {
        switch marker >> 4 {
        case 0x0: marker == 0x08 || marker == 0x09 ? "a Boolean" : "a null or fill byte"
        case 0x1: "an integer"
        case 0x2: "a real"
        case 0x3: "a date"
        case 0x4: "data"
        case 0x5, 0x6: "a string"
        case 0x8: "a UID"
        case 0xA: "an array"
        case 0xC: "a set"
        case 0xD: "a dictionary"
        default: "an unknown object \(hex(marker))"
        }
    }

    private func hex(_ value: some FixedWidthInteger) -> String { "0x" + String(value, radix: 16, uppercase: true) }

    private func invalid(at offset: Int, _ reason: String) -> PropertyListParser.Failure {
        PropertyListParser.Failure(offset: offset, reason: reason)
    }
}
