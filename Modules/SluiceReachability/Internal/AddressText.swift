#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Converts IP addresses between text and bytes with `inet_pton` / `inet_ntop`, and IPv6 zones
/// between interface names and indexes.
enum AddressText {
    /// The 4 bytes of a dotted-quad IPv4 address, or `nil`.
    static func ipv4Bytes(_ text: String) -> [UInt8]? { bytes(text, family: AF_INET, count: 4) }

    /// The 16 bytes of an IPv6 address, or `nil`.
    static func ipv6Bytes(_ text: String) -> [UInt8]? { bytes(text, family: AF_INET6, count: 16) }

    private static func bytes(_ text: String, family: Int32, count: Int) -> [UInt8]? {
        guard !text.utf8.contains(0) else { return nil }
        var result = [UInt8](repeating: 0, count: count)
        let converted = result.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return converted == 1 ? result : nil
    }

    /// The conventional text of 4 or 16 address bytes (`192.0.2.1`, `2001:db8::1`).
    static func text(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard bytes.count == 4 || bytes.count == 16 else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = bytes.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { inet_ntop(family, raw.baseAddress, $0.baseAddress, socklen_t($0.count)) }
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The index of the interface a zone names: a decimal index, or an interface name in this
    /// network namespace. `nil` when neither.
    static func zoneIndex(_ zone: String) -> UInt32? {
        if let number = UInt32(zone), number != 0 { return number }
        guard !zone.isEmpty, !zone.utf8.contains(0) else { return nil }
        let index = if_nametoindex(zone)
        return index == 0 ? nil : index
    }

    /// The name of the interface with `index`, or the index in decimal when there is none.
    static func zoneName(_ index: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        let name = buffer.withUnsafeMutableBufferPointer { if_indextoname(index, $0.baseAddress) }
        guard name != nil else { return String(index) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
