#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// UTF-8 bytes that libxml2 lends to an ``XMLBorrowedEventParser`` handler: a name, an attribute value,
/// a piece of text. Nothing is copied until ``string`` is asked for.
///
/// **Valid only during the handler call that received it**: the bytes belong to libxml2's buffers,
/// which the parse reuses as soon as the handler returns. Keep ``string`` (a copy), never the bytes.
public struct XMLBytes {
    /// The bytes (UTF-8, not NUL-terminated), valid during the handler call only.
    public let buffer: UnsafeBufferPointer<UInt8>

    /// A view of `buffer`.
    @inline(__always)
    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// A view of a NUL-terminated string (its length is measured).
    @inline(__always)
    init(cString pointer: UnsafePointer<UInt8>) {
        buffer = UnsafeBufferPointer(start: pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
    }

    /// A view of a NUL-terminated string, or `nil` for `NULL`.
    @inline(__always)
    static func optional(_ pointer: UnsafePointer<UInt8>?) -> XMLBytes? {
        pointer.map { XMLBytes(cString: $0) }
    }

    /// No bytes.
    static var empty: XMLBytes { XMLBytes(UnsafeBufferPointer(start: nil, count: 0)) }

    /// The number of bytes.
    public var count: Int { buffer.count }

    /// Whether there are no bytes.
    public var isEmpty: Bool { buffer.isEmpty }

    /// A copy of the bytes as a `String` (allocates for more than 15 bytes). libxml2 has already
    /// checked the UTF-8, so nothing is replaced.
    public var string: String { String(decoding: buffer, as: UTF8.self) }

    /// Whether the bytes are `string`'s UTF-8, compared byte by byte without allocating (a literal
    /// such as `"item"` is stored inline).
    @inline(__always)
    public static func == (bytes: XMLBytes, string: String) -> Bool {
        var string = string
        return string.withUTF8 { other in
            other.count == bytes.buffer.count
                && (other.isEmpty || memcmp(other.baseAddress!, bytes.buffer.baseAddress!, other.count) == 0)
        }
    }

    /// Whether the bytes are not `string`'s UTF-8.
    @inline(__always)
    public static func != (bytes: XMLBytes, string: String) -> Bool { !(bytes == string) }

    /// Whether two views hold the same bytes.
    @inline(__always)
    public static func == (lhs: XMLBytes, rhs: XMLBytes) -> Bool {
        lhs.buffer.count == rhs.buffer.count
            && (lhs.buffer.isEmpty || memcmp(lhs.buffer.baseAddress!, rhs.buffer.baseAddress!, lhs.buffer.count) == 0)
    }
}

@available(*, unavailable, message: "borrowed bytes are valid only during the handler call")
extension XMLBytes: Sendable {}
