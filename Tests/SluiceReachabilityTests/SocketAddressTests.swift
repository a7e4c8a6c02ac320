import SluiceCore
import SluiceReachability
import Testing

@Suite("SocketAddress")
struct SocketAddressTests {
    typealias SocketAddress = NetworkReachabilityManager.SocketAddress

    @Test("IPv4 and IPv6 text, brackets, ports", arguments: [
        ("192.0.2.1", SocketAddress.Family.ipv4, "192.0.2.1"),
        ("::1", .ipv6, "::1"),
        ("[2001:db8::7]", .ipv6, "2001:db8::7"),
        ("2001:DB8:0:0:0:0:0:7", .ipv6, "2001:db8::7"),
        ("::ffff:192.0.2.1", .ipv6, "::ffff:192.0.2.1"),
    ])
    func parse(text: String, family: SocketAddress.Family, canonical: String) throws {
        let address = try SocketAddress(text, port: 8080)
        #expect(address.family == family)
        #expect(address.bytes.count == (family == .ipv4 ? 4 : 16))
        #expect(address.ipAddress == canonical)
        #expect(address.description == (family == .ipv4 ? "\(canonical):8080" : "[\(canonical)]:8080"))
    }

    @Test("text that is not an address throws reachability.invalidAddress", arguments: [
        "", "localhost", "256.0.0.1", "1.2.3", "1.2.3.4.5", "::1::", "2001:db8::1%no-such-interface", "192.0.2.1%lo",
        "[::1", "a\u{0}b",
    ])
    func invalid(text: String) {
        let error = #expect(throws: SluiceError.self) { try SocketAddress(text) }
        #expect(error?.code == .reachabilityInvalidAddress)
        #expect(error?.code.rawValue == "reachability.invalidAddress")
    }

    @Test("IPv6 zones by name or index; bytes of the wrong length refused")
    func zonesAndBytes() throws {
        let zoned = try SocketAddress("fe80::1%lo")
        #expect(zoned.scopeID == 1)
        #expect(zoned.ipAddress == "fe80::1%lo")
        #expect(try SocketAddress("fe80::1%1") == zoned)
        #expect(try SocketAddress(bytes: [127, 0, 0, 1]) == SocketAddress.ipv4Loopback)
        #expect(try SocketAddress(bytes: Array(repeating: 0, count: 15) + [1]) == SocketAddress.ipv6Loopback)
        #expect(SocketAddress(ipv4: 203, 0, 113, 9).ipAddress == "203.0.113.9")
        let error = #expect(throws: SluiceError.self) { try SocketAddress(bytes: [1, 2, 3]) }
        #expect(error?.code == .reachabilityInvalidAddress)
    }
}
