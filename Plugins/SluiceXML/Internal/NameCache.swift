import CLibXML2

/// Swift strings for libxml2 strings, made once per pointer: libxml2 interns names in its dictionary
/// and shares namespace URIs between nodes, and those strings live as long as the parse or document, so
/// a pointer seen once names the same string while they do.
///
/// A direct-mapped table of 1,024 slots: a lookup is a shift, a mask and a compare (no hashing); two
/// pointers that share a slot evict each other, which costs a new string, never a wrong one. Used by
/// one parse or conversion at a time.
final class NameCache {
    private static let slots = 1024
    private let keys = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: NameCache.slots)
    private let values = UnsafeMutablePointer<String>.allocate(capacity: NameCache.slots)

    init() {
        keys.initialize(repeating: nil, count: Self.slots)
        values.initialize(repeating: "", count: Self.slots)
    }

    deinit {
        keys.deallocate()
        values.deinitialize(count: Self.slots)
        values.deallocate()
    }

    /// The string at `pointer`, or `nil` for `NULL`.
    @inline(__always)
    func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        guard let pointer else { return nil }
        let key = UnsafeRawPointer(pointer)
        let bits = UInt(bitPattern: key)
        let slot = Int(truncatingIfNeeded: (bits ^ (bits >> 10)) & UInt(Self.slots - 1))
        if keys[slot] == key { return values[slot] }
        let string = String(cString: pointer)
        keys[slot] = key
        values[slot] = string
        return string
    }
}
