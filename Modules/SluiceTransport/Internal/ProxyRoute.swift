import Foundation
import SluiceCore

/// Where one request's connection goes, directly or through a proxy: decided from the request's or the
/// session's ``ProxyChoice`` and, for ``ProxyChoice/environment``, the environment the session read when
/// it was made. A value with no I/O; the transfer hands what it decides to curl.
enum ProxyRoute: Equatable {
    /// No proxy: curl is told so explicitly, so it does not read the environment itself.
    case direct
    /// Through this proxy.
    case proxy(Proxy)

    /// The proxy variables of a process's environment.
    struct Environment: Equatable, Sendable {
        var http: String?
        var https: String?
        var all: String?
        var noProxy: String?

        /// Reads `variables`: each name in lower case, then upper case; `HTTP_PROXY` not when
        /// `REQUEST_METHOD` is set (a CGI program, where a request's `Proxy` header becomes it).
        init(_ variables: [String: String]) {
            func read(_ name: String, upperCase: Bool = true) -> String? {
                if let value = variables[name], !value.isEmpty { return value }
                if upperCase, let value = variables[name.uppercased()], !value.isEmpty { return value }
                return nil
            }
            http = read("http_proxy", upperCase: variables["REQUEST_METHOD"] == nil)
            https = read("https_proxy")
            all = read("all_proxy")
            noProxy = read("no_proxy")
        }

        /// Whether a proxy is named for any scheme (`no_proxy` alone routes nothing).
        var namesProxy: Bool { http != nil || https != nil || all != nil }

        /// The running process's environment.
        static var current: Environment { Environment(ProcessInfo.processInfo.environment) }
    }

    /// The route for a request to `url`.
    ///
    /// - Throws: ``SluiceError/Code/invalidProxy`` for a proxy that cannot be used (an unknown scheme,
    ///   no host, an environment value that is no URL).
    static func route(for url: URL, choice: ProxyChoice, environment: Environment) throws(SluiceError) -> ProxyRoute {
        // A Unix socket is reached directly.
        if let scheme = url.scheme, HTTPRequest.unixSocketScheme(scheme) != nil { return .direct }
        switch choice {
        case .direct:
            return .direct
        case .proxy(let proxy):
            try proxy.validate()
            return bypasses(url, proxy.bypass) ? .direct : .proxy(proxy)
        case .environment:
            // The usual case, no proxy variable set: nothing to look at.
            guard environment.namesProxy else { return .direct }
            let overTLS = url.scheme?.lowercased() == "https"
            guard let text = (overTLS ? environment.https : environment.http) ?? environment.all else { return .direct }
            if let noProxy = environment.noProxy, bypasses(url, entries(of: noProxy)) { return .direct }
            // A value without a scheme names an HTTP proxy, as curl reads it.
            let written = text.contains("://") ? text : "http://" + text
            guard let proxyURL = URL(string: written) else {
                throw SluiceError(.invalidProxy, "the environment's proxy \(text.debugDescription) is not a URL")
            }
            let proxy = Proxy(url: proxyURL)
            try proxy.validate()
            return .proxy(proxy)
        }
    }

    /// The entries of a `no_proxy` list: separated by commas or white space.
    static func entries(of list: String) -> [String] {
        list.split { $0 == "," || $0 == " " || $0 == "\t" }.map(String.init)
    }

    /// Whether `url`'s host is one of `entries` (see ``Proxy/bypass``): `*`, a name or a name's parent
    /// domain, an IP address, or a range of addresses. Compared by bytes, ASCII case ignored.
    static func bypasses(_ url: URL, _ entries: [String]) -> Bool {
        guard var host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        let address = IPAddress(host)
        for raw in entries {
            var entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix("["), entry.hasSuffix("]") { entry = String(entry.dropFirst().dropLast()) }
            if let slash = entry.firstIndex(of: "/") {
                guard let address, let network = IPAddress(String(entry[..<slash])),
                    let bits = Int(entry[entry.index(after: slash)...])
                else { continue }
                if address.isIn(network, prefixLength: bits) { return true }
                continue
            }
            if let address, let other = IPAddress(entry) {
                if address == other { return true }
                continue
            }
            while entry.hasPrefix(".") { entry.removeFirst() }
            if entry.hasSuffix(".") { entry.removeLast() }
            guard !entry.isEmpty else { continue }
            if host.utf8.elementsEqual(entry.utf8) { return true }
            let hostBytes = Array(host.utf8), entryBytes = Array(entry.utf8)
            if hostBytes.count > entryBytes.count, hostBytes.suffix(entryBytes.count).elementsEqual(entryBytes),
                hostBytes[hostBytes.count - entryBytes.count - 1] == UInt8(ascii: ".")
            {
                return true
            }
        }
        return false
    }

    /// An IPv4 or IPv6 address as its bytes, for comparing and for ranges.
    struct IPAddress: Equatable {
        let bytes: [UInt8]

        init?(_ text: String) {
            var v4 = in_addr()
            if text.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 {
                bytes = withUnsafeBytes(of: &v4) { Array($0) }
                return
            }
            var v6 = in6_addr()
            if text.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 {
                bytes = withUnsafeBytes(of: &v6) { Array($0) }
                return
            }
            return nil
        }

        /// Whether the first `prefixLength` bits equal `network`'s (both of the same family).
        func isIn(_ network: IPAddress, prefixLength: Int) -> Bool {
            guard bytes.count == network.bytes.count, (0...bytes.count * 8).contains(prefixLength) else { return false }
            var remaining = prefixLength
            for index in bytes.indices where remaining > 0 {
                let take = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
                if bytes[index] & mask != network.bytes[index] & mask { return false }
                remaining -= take
            }
            return true
        }
    }
}
