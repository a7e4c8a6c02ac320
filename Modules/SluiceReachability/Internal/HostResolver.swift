#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns a host name into the addresses a manager checks routes to.
///
/// - An IP literal (`192.0.2.1`, `::1`, `[::1]`, `fe80::1%eth0`) is its own address.
/// - Names RFC 6761 reserves are answered without a lookup: `localhost` and names under
///   `.localhost` are `127.0.0.1` and `::1`; `invalid` and names under `.invalid` never resolve.
/// - Other names go through `getaddrinfo` (so `/etc/hosts`, DNS and any other NSS source apply),
///   in the order it returns them, duplicates removed. It blocks for as long as the resolver takes.
enum HostResolver {
    /// The addresses of `host`; empty when it does not resolve.
    static func addresses(of host: String) -> [NetworkReachabilityManager.SocketAddress] {
        if let literal = try? NetworkReachabilityManager.SocketAddress(host) { return [literal] }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") {
            return [.ipv4Loopback, .ipv6Loopback]
        }
        if name == "invalid" || name.hasSuffix(".invalid") { return [] }
        return systemAddresses(of: host)
    }

    /// What `getaddrinfo` answers for `host`, any family; empty on failure.
    static func systemAddresses(of host: String) -> [NetworkReachabilityManager.SocketAddress] {
        guard !host.isEmpty, !host.utf8.contains(0) else { return [] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var result: [NetworkReachabilityManager.SocketAddress] = []
        var entry = list
        while let current = entry {
            if let address = socketAddress(current.pointee), !result.contains(address) { result.append(address) }
            entry = current.pointee.ai_next
        }
        return result
    }

    /// The address in one `getaddrinfo` entry, when it is IPv4 or IPv6.
    private static func socketAddress(_ info: addrinfo) -> NetworkReachabilityManager.SocketAddress? {
        guard let raw = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET where Int(info.ai_addrlen) >= MemoryLayout<sockaddr_in>.size:
            let address = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
            let bytes = withUnsafeBytes(of: address.sin_addr) { Array($0) }
            return try? .init(bytes: bytes)
        case AF_INET6 where Int(info.ai_addrlen) >= MemoryLayout<sockaddr_in6>.size:
            let address = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            return try? .init(bytes: bytes, scopeID: address.sin6_scope_id)
        default:
            return nil
        }
    }
}
