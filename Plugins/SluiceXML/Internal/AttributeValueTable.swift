#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The attribute values of one start element, for both event parsers: views of libxml2's buffer, or of a
/// scratch buffer for a value whose `&` libxml2 wrote as `&#38;` (SAX2 without entity substitution
/// does; the tree builder decodes it the same way). Both buffers grow as needed and are reused, so a
/// start element allocates nothing once they are large enough.
///
/// A value type kept behind a pointer by ``ParseState``: no exclusivity checks or reference counting.
struct AttributeValueTable {
    private var values: UnsafeMutablePointer<UnsafeBufferPointer<UInt8>>?
    private var capacity = 0
    private var scratch: UnsafeMutablePointer<UInt8>?
    private var scratchCapacity = 0

    /// Frees both buffers.
    mutating func release() {
        values?.deallocate()
        scratch?.deallocate()
        values = nil
        scratch = nil
        capacity = 0
        scratchCapacity = 0
    }

    /// The values of the first `count` attributes of a SAX2 attribute array (five pointers each:
    /// local name, prefix, URI, value start, value end).
    @inline(__always)
    mutating func load(_ fields: UnsafePointer<UnsafePointer<UInt8>?>, count: Int) -> UnsafePointer<UnsafeBufferPointer<UInt8>> {
        if count > capacity { grow(to: count) }
        let values = self.values!
        var escaped = 0
        for index in 0..<count {
            let attribute = fields + 5 * index
            guard let start = attribute[3], let end = attribute[4] else {
                values[index] = UnsafeBufferPointer(start: nil, count: 0)
                continue
            }
            let length = end - start
            values[index] = UnsafeBufferPointer(start: start, count: length)
            if length > 0, memchr(start, Int32(UInt8(ascii: "&")), length) != nil { escaped += length }
        }
        if escaped > 0 { decode(count: count, needing: escaped) }
        return UnsafePointer(values)
    }

    private mutating func grow(to count: Int) {
        values?.deallocate()
        capacity = max(count, 2 * capacity, 16)
        values = .allocate(capacity: capacity)
    }

    /// Rewrites the values that contain `&` into the scratch buffer, `&#38;` as `&`.
    private mutating func decode(count: Int, needing bytes: Int) {
        if bytes > scratchCapacity {
            scratch?.deallocate()
            scratchCapacity = max(bytes, 2 * scratchCapacity, 256)
            scratch = .allocate(capacity: scratchCapacity)
        }
        let values = self.values!
        var output = scratch!
        for index in 0..<count {
            let value = values[index]
            guard let start = value.baseAddress, value.count > 0, memchr(start, Int32(UInt8(ascii: "&")), value.count) != nil else { continue }
            let decodedStart = output
            var offset = 0
            while offset < value.count {
                output.pointee = value[offset]
                output += 1
                offset += Self.isEscapedAmpersand(value, at: offset) ? 5 : 1
            }
            values[index] = UnsafeBufferPointer(start: decodedStart, count: output - decodedStart)
        }
    }

    @inline(__always)
    private static func isEscapedAmpersand(_ value: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        value[offset] == UInt8(ascii: "&") && offset + 5 <= value.count
            && value[offset + 1] == UInt8(ascii: "#") && value[offset + 2] == UInt8(ascii: "3")
            && value[offset + 3] == UInt8(ascii: "8") && value[offset + 4] == UInt8(ascii: ";")
    }
}
