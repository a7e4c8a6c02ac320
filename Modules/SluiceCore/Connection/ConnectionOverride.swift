import Foundation

/// One connection override: requests to ``host`` and ``port`` connect to ``targetHost`` and
/// ``targetPort`` instead (curl's `--connect-to HOST:PORT:TARGET:TARGET_PORT`). The request keeps its
/// URL: its `Host`, its TLS server name and the certificate check are the original host's.
public struct ConnectionOverride: Sendable, Hashable, CustomStringConvertible {
    /// The URL host it applies to, or `nil` for any host.
    public var host: String?
    /// The URL port it applies to (the scheme's when the URL has none), or `nil` for any port.
    public var port: Int?
    /// The host or address connected to, or `nil` to keep the URL's host.
    public var targetHost: String?
    /// The port connected to, or `nil` to keep the URL's port.
    public var targetPort: Int?

    /// An override from `host`:`port` to `targetHost`:`targetPort`.
    ///
    /// - Parameters:
    ///   - host: The URL host it applies to. Default `nil` (any).
    ///   - port: The URL port it applies to. Default `nil` (any).
    ///   - targetHost: Where to connect. Default `nil` (the URL's host). An IPv6 address is written
    ///     without brackets.
    ///   - targetPort: The port to connect to. Default `nil` (the URL's port).
    public init(host: String? = nil, port: Int? = nil, targetHost: String? = nil, targetPort: Int? = nil) {
        self.host = host
        self.port = port
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    /// The override as curl's `CURLOPT_CONNECT_TO` takes it: `HOST:PORT:TARGET:TARGET_PORT`, a part
    /// left empty for "any" or "the same", an IPv6 address in brackets.
    public var description: String {
        "\(Self.bracketed(host)):\(port.map(String.init) ?? ""):\(Self.bracketed(targetHost)):\(targetPort.map(String.init) ?? "")"
    }

    /// Checks the parts: hosts without `:` (other than an IPv6 address), `/`, spaces or control
    /// characters, ports from 1 to 65535.
    ///
    /// - Throws: ``SluiceError/Code/invalidConnectionSettings`` naming the part.
    public func validate() throws(SluiceError) {
        for (name, value) in [("host", host), ("target host", targetHost)] {
            guard let value else { continue }
            let isIPv6 = value.utf8.contains(UInt8(ascii: ":")) && Self.isIPv6Address(value)
            guard !value.isEmpty, isIPv6 || value.utf8.allSatisfy(Self.isHostByte) else {
                throw SluiceError(.invalidConnectionSettings, "the override's \(name) \(value.debugDescription) is not a host name or address")
            }
        }
        for (name, value) in [("port", port), ("target port", targetPort)] {
            if let value, !(1...65535).contains(value) {
                throw SluiceError(.invalidConnectionSettings, "the override's \(name) \(value) is not from 1 to 65535")
            }
        }
    }

    private static func bracketed(_ host: String?) -> String {
        guard let host else { return "" }
        return host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
    }

    /// Letters, digits, `-`, `.`, `_`: a DNS name or an IPv4 address.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Whether `value` is an IPv6 address, with an optional `%zone`.
    private static func isIPv6Address(_ value: String) -> Bool {
        let parts = value.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, parts[1].isEmpty || !parts[1].utf8.allSatisfy(isHostByte) { return false }
        var address = in6_addr()
        return String(parts[0]).withCString { inet_pton(AF_INET6, $0, &address) } == 1
    }
}
