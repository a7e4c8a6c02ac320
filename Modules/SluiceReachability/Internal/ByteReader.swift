/// Bounds-checked reads of host-order integers and byte runs from a buffer received from the kernel.
///
/// Every read returns `nil` instead of trapping when it would leave the buffer, so a parser built on
/// it cannot crash on short or lying lengths.
struct ByteReader {
    /// The bytes read.
    let bytes: [UInt8]

    /// Reads from `bytes`.
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes.
    var count: Int { bytes.count }

    /// Whether `length` bytes start at `offset` inside the buffer.
    func contains(offset: Int, length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    /// The integer of type `T` in host byte order at `offset`, or `nil` past the end.
    func integer<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T? {
        guard contains(offset: offset, length: MemoryLayout<T>.size) else { return nil }
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// The byte at `offset`, or `nil` past the end.
    func uint8(at offset: Int) -> UInt8? { integer(UInt8.self, at: offset) }
    /// The host-order 16-bit integer at `offset`, or `nil` past the end.
    func uint16(at offset: Int) -> UInt16? { integer(UInt16.self, at: offset) }
    /// The host-order 32-bit integer at `offset`, or `nil` past the end.
    func uint32(at offset: Int) -> UInt32? { integer(UInt32.self, at: offset) }
    /// The host-order signed 32-bit integer at `offset`, or `nil` past the end.
    func int32(at offset: Int) -> Int32? { integer(Int32.self, at: offset) }

    /// A copy of `length` bytes starting at `offset`, or `nil` when they are not all inside the buffer.
    func bytes(at offset: Int, length: Int) -> [UInt8]? {
        guard contains(offset: offset, length: length) else { return nil }
        return Array(bytes[offset..<(offset + length)])
    }
}
