import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// Requests through real proxies the test environment runs: tinyproxy (HTTP, CONNECT for https),
/// microsocks (SOCKS5 with a user name and password), and nginx over TLS (an HTTPS proxy). The proxies'
/// logs show what went through them; nginx's log shows that proxy credentials never reached the origin.
@Suite("Proxies: tinyproxy, microsocks, an HTTPS proxy", .tags(.server), .needsServers, .serialized)
struct ProxyServerTests {
    static func value(_ key: String) throws -> String {
        try #require(TestEnvironment.requireServers().values[key], "\(key) is not set: start the servers with \(ServerEnvironment.startCommand)")
    }

    static func proxy(_ key: String, user: String?, password: String?, bypass: [String] = []) throws -> Proxy {
        var proxy = Proxy(url: URL(string: try value(key))!, user: user, password: password, bypass: bypass)
        if key == "SLUICE_HTTPS_PROXY_URL" {
            proxy.trustedCertificatesPEM = try Data(contentsOf: URL(fileURLWithPath: try #require(TestEnvironment.requireServers().caFile)))
        }
        return proxy
    }

    /// The size of the log at `key` now: lines of requests sent later come after it.
    static func logSize(_ key: String) throws -> UInt64 { Wait.fileSize(try value(key)) }

    /// The lines of the log at `key` after `offset` that contain `text`, waited for when `expecting` some.
    ///
    /// Only the log's last 8 MiB are searched, as bytes: the servers' logs grow with every request any test
    /// or benchmark sends them, the lines looked for are the newest, and splitting a long log into strings
    /// on each look kept the test's threads busy for minutes.
    static func lines(of key: String, containing text: String, after offset: UInt64 = 0, expecting: Bool = true) async throws -> [String] {
        let path = try value(key)
        func read() throws -> [String] {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? file.close() }
            let size = try file.seekToEnd()
            try file.seek(toOffset: min(size, max(offset, size > (8 << 20) ? size - (8 << 20) : 0)))
            var tail = try file.readToEnd() ?? Data()
            tail.append(0)
            // strstr, not a loop over the bytes: a debug build's loop takes a second per look at 8 MiB.
            return tail.withUnsafeBytes { raw -> [String] in
                let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                let newline = CChar(UInt8(ascii: "\n"))
                var found: [String] = []
                var cursor = base
                while let hit = strstr(cursor, text) {
                    var start = UnsafePointer(hit)
                    while start > cursor, start[-1] != newline { start -= 1 }
                    var end = UnsafePointer(hit)
                    while end.pointee != 0, end.pointee != newline { end += 1 }
                    found.append(String(decoding: UnsafeRawBufferPointer(start: start, count: end - start), as: UTF8.self))
                    if end.pointee == 0 { break }
                    cursor = end + 1
                }
                return found
            }
        }
        if expecting { try await Wait.until("a line containing \"\(text)\" in \(path)") { try !read().isEmpty } }
        return try read()
    }

    /// nginx's log lines for `uri`: what the origin saw.
    static func originSaw(_ uri: String) async throws -> [[String: Any]] {
        try await lines(of: "SLUICE_NGINX_ACCESS_LOG", containing: uri).compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func unique(_ path: String = "/status") -> String { "\(path)?run=\(UUID().uuidString)" }

    @Test("http and https URLs through tinyproxy with credentials: forwarded, and tunnelled with CONNECT; the origin never sees them")
    func httpProxy() async throws {
        let proxy = try Self.proxy("SLUICE_TINYPROXY_URL", user: "proxy", password: "secret")
        let session = try Transport.session { $0.proxy = .proxy(proxy) }
        defer { session.invalidate(cancelingTasks: true) }

        let plain = Self.unique()
        #expect(try await session.data(for: Transport.request(.http, plain)).response.statusCode == 200)
        #expect(try await Self.lines(of: "SLUICE_TINYPROXY_LOG", containing: plain).contains { $0.contains("GET http://127.0.0.1") })
        #expect(try await Self.originSaw(plain).allSatisfy { ($0["proxy_authorization"] as? String) == "" })

        let secure = Self.unique()
        let https = try TestEnvironment.url(for: .https)
        // The CONNECT line names no path: only the lines after this point are this request's.
        let tunnelled = try Self.logSize("SLUICE_TINYPROXY_LOG")
        #expect(try await session.data(for: Transport.request(.https, secure)).response.statusCode == 200)
        #expect(try await !Self.lines(of: "SLUICE_TINYPROXY_LOG", containing: "CONNECT 127.0.0.1:\(https.port!)", after: tunnelled).isEmpty)
        let seen = try await Self.originSaw(secure)
        #expect(seen.count == 1 && seen.allSatisfy { ($0["proxy_authorization"] as? String) == "" })
    }

    @Test("tinyproxy without credentials: a plain request gets its 407, a tunnel is proxyRefused")
    func refused() async throws {
        let proxy = try Self.proxy("SLUICE_TINYPROXY_URL", user: nil, password: nil)
        let session = try Transport.session { $0.proxy = .proxy(proxy) }
        defer { session.invalidate(cancelingTasks: true) }
        #expect(try await session.data(for: Transport.request(.http, Self.unique())).response.statusCode == 407)
        let error = await #expect(throws: SluiceError.self) { try await session.data(for: Transport.request(.https, Self.unique())) }
        #expect(error?.code == .proxyRefused)
    }

    @Test("SOCKS5 with a user name and password; SOCKS5h hands the proxy the name; wrong credentials are proxyRefused")
    func socks() async throws {
        let http = try TestEnvironment.url(for: .http)
        var local = try Self.proxy("SLUICE_SOCKS_URL", user: "sock", password: "secret")
        let byName = HTTPRequest(url: URL(string: "http://localhost:\(http.port!)\(Self.unique())")!)

        // microsocks's lines name no path: only the lines after each request's start are its own.
        let here = try Self.logSize("SLUICE_SOCKS_LOG")
        let resolvingHere = try Transport.session { $0.proxy = .proxy(local) }
        defer { resolvingHere.invalidate(cancelingTasks: true) }
        #expect(try await resolvingHere.data(for: byName).response.statusCode == 200)
        #expect(try await !Self.lines(of: "SLUICE_SOCKS_LOG", containing: "connected to 127.0.0.1:\(http.port!)", after: here).isEmpty)

        var remote = local
        remote.url = URL(string: local.url.absoluteString.replacingOccurrences(of: "socks5://", with: "socks5h://"))!
        let there = try Self.logSize("SLUICE_SOCKS_LOG")
        let resolvingThere = try Transport.session { $0.proxy = .proxy(remote) }
        defer { resolvingThere.invalidate(cancelingTasks: true) }
        #expect(try await resolvingThere.data(for: byName).response.statusCode == 200)
        #expect(try await !Self.lines(of: "SLUICE_SOCKS_LOG", containing: "connected to localhost:\(http.port!)", after: there).isEmpty)

        local.password = "wrong"
        let refused = try Transport.session { $0.proxy = .proxy(local) }
        defer { refused.invalidate(cancelingTasks: true) }
        let error = await #expect(throws: SluiceError.self) { try await refused.data(for: byName) }
        #expect(error?.code == .proxyRefused)
    }

    @Test("an HTTPS proxy (TLS to the proxy, its CA given): the request goes through it")
    func httpsProxy() async throws {
        let proxy = try Self.proxy("SLUICE_HTTPS_PROXY_URL", user: "proxy", password: "secret")
        let session = try Transport.session { $0.proxy = .proxy(proxy) }
        defer { session.invalidate(cancelingTasks: true) }
        let result = try await session.data(for: Transport.request(.httpbin, "/headers"))
        let headers = try Transport.json(result.data)["headers"] as? [String: String]
        #expect(headers?["X-Sluice-Proxy"] == "https")
        #expect(headers?["Proxy-Authorization"] == nil)
    }

    @Test("the bypass list and per-request choices: a bypassed host and a direct request skip the proxy; a request may pick its own")
    func choices() async throws {
        let proxy = try Self.proxy("SLUICE_TINYPROXY_URL", user: "proxy", password: "secret", bypass: ["127.0.0.1"])
        let session = try Transport.session { $0.proxy = .proxy(proxy) }
        defer { session.invalidate(cancelingTasks: true) }
        let bypassed = Self.unique()
        #expect(try await session.data(for: Transport.request(.http, bypassed)).response.statusCode == 200)
        #expect(try await Self.originSaw(bypassed).count == 1)
        // Read once the origin has logged the request: had it gone through tinyproxy, tinyproxy would have
        // logged it before passing it on.
        #expect(try await Self.lines(of: "SLUICE_TINYPROXY_LOG", containing: bypassed, expecting: false).isEmpty)

        let direct = try Transport.session { $0.proxy = .direct }
        defer { direct.invalidate(cancelingTasks: true) }
        var routed = try Transport.request(.http, Self.unique())
        routed.proxy = .proxy(try Self.proxy("SLUICE_TINYPROXY_URL", user: "proxy", password: "secret"))
        #expect(try await direct.data(for: routed).response.statusCode == 200)
        #expect(try await !Self.lines(of: "SLUICE_TINYPROXY_LOG", containing: routed.url.query!).isEmpty)
    }

    @Test("the environment: http_proxy is used by default, no_proxy skips it (a child process with its own environment)")
    func environment() async throws {
        let caFile = try #require(TestEnvironment.requireServers().caFile)
        let tinyproxy = URL(string: try Self.value("SLUICE_TINYPROXY_URL"))!
        let proxyURL = "http://proxy:secret@\(tinyproxy.host!):\(tinyproxy.port!)"
        let through = Self.unique()
        let outcome = try await ChildProcess.run(
            "sluice-exit-probe", arguments: [try TestEnvironment.url(for: .http).absoluteString + through, caFile, "1", "release"],
            environment: ["http_proxy": proxyURL, "no_proxy": "", "NO_PROXY": ""])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(try await !Self.lines(of: "SLUICE_TINYPROXY_LOG", containing: through).isEmpty)

        let around = Self.unique()
        let skipped = try await ChildProcess.run(
            "sluice-exit-probe", arguments: [try TestEnvironment.url(for: .http).absoluteString + around, caFile, "1", "release"],
            environment: ["http_proxy": proxyURL, "no_proxy": "localhost,127.0.0.1"])
        #expect(skipped.status == 0, "\(skipped.errors)")
        #expect(try await Self.originSaw(around).count == 1)
        // Read once the origin has logged the request (tinyproxy logs a request before passing it on).
        #expect(try await Self.lines(of: "SLUICE_TINYPROXY_LOG", containing: around, expecting: false).isEmpty)
    }
}
