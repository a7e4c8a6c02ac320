/// A fuzz input read as a series of choices and byte strings, so one input can build structured
/// values (options, parameter trees, chunk sizes). Reading past the end gives zeros and empty strings,
/// never a trap.
public struct FuzzInput {
    /// The bytes not read yet.
    public private(set) var remaining: ArraySlice<UInt8>

    /// Reads `size` bytes at `data`.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        remaining = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    }

    /// Reads `bytes`.
    public init(_ bytes: [UInt8]) { remaining = bytes[...] }

    /// Whether every byte has been read.
    public var isEmpty: Bool { remaining.isEmpty }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 { remaining.popFirst() ?? 0 }

    /// A Boolean from the next byte's low bit.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number in `range` from the next two bytes.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let raw = Int(byte()) << 8 | Int(byte())
        return range.lowerBound + raw % (range.upperBound - range.lowerBound + 1)
    }

    /// A 64-bit pattern from the next eight bytes (little-endian).
    public mutating func uint64() -> UInt64 {
        (0..<8).reduce(UInt64(0)) { value, shift in value | UInt64(byte()) << (8 * UInt64(shift)) }
    }

    /// Up to `limit` bytes: as many as the next byte says (modulo `limit + 1`).
    public mutating func bytes(upTo limit: Int) -> [UInt8] {
        let count = min(Int(byte()) % (limit + 1), remaining.count)
        defer { remaining.removeFirst(count) }
        return Array(remaining.prefix(count))
    }

    /// A string from ``bytes(upTo:)``, invalid UTF-8 repaired.
    public mutating func string(upTo limit: Int) -> String { String(decoding: bytes(upTo: limit), as: UTF8.self) }

    /// Every byte not read yet.
    public mutating func rest() -> [UInt8] {
        defer { remaining = [] }
        return Array(remaining)
    }
}

/// Stops the run on a broken property. libFuzzer reports the trap as a crash and saves the input.
public func propertyFailed(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("property broken: \(message())", file: file, line: line)
}

/// `bytes` cut into chunks whose sizes come from `sizes` (each 1 or more, cycling; the whole input
/// when `sizes` is empty).
public func chunks(of bytes: [UInt8], sizes: [UInt8]) -> [[UInt8]] {
    guard !sizes.isEmpty else { return bytes.isEmpty ? [] : [bytes] }
    var result: [[UInt8]] = []
    var start = 0, index = 0
    while start < bytes.count {
        let size = max(1, Int(sizes[index % sizes.count]))
        result.append(Array(bytes[start..<min(bytes.count, start + size)]))
        start += size
        index += 1
    }
    return result
}
