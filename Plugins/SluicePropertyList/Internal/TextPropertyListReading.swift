/// What the two text parsers (XML and OpenStep) share: a byte buffer read from a position, and the
/// helpers that look at it and make their failures.
protocol TextPropertyListReading {
    /// The body.
    var bytes: [UInt8] { get }
    /// Where reading stands.
    var position: Int { get }
}

extension TextPropertyListReading {
    /// Where reading starts: past a UTF-8 byte-order mark, if the body has one.
    var startAfterByteOrderMark: Int { bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0 }

    /// Whether the bytes at `position` start with `prefix`.
    func at(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard count <= bytes.count - position else { return false }
        return prefix.withUTF8Buffer { buffer in
            for index in 0..<count where bytes[position + index] != buffer[index] { return false }
            return true
        }
    }

    /// The failure for nesting past ``PropertyListParser/maximumDepth``, at `offset`.
    func tooDeep(at offset: Int) -> PropertyListParser.Failure {
        invalid(at: offset, "arrays and dictionaries nest more than \(PropertyListParser.maximumDepth) deep")
    }

    /// A failure at byte `offset`.
    func invalid(at offset: Int, _ reason: String) -> PropertyListParser.Failure {
        PropertyListParser.Failure(offset: offset, reason: reason)
    }
}
