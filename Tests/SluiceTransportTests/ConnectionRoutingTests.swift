import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// Where connections go, against nginx: a Unix domain socket (by setting or by `http+unix` URL), host
/// overrides that stay with their request, the address family, the local interface.
@Suite("Connection routing against nginx", .tags(.server), .needsServers)
struct ConnectionRoutingTests {
    static func socketPath() throws -> String {
        try #require(TestEnvironment.requireServers().values["SLUICE_HTTP_UNIX_SOCKET"], "the test environment names no Unix socket for nginx")
    }

    @Test("a session with a Unix socket reaches nginx through it, whatever the URL's host (which resolves nowhere)")
    func socketSetting() async throws {
        let path = try Self.socketPath()
        let session = try Transport.session { $0.connection.unixSocketPath = path }
        defer { session.invalidate(cancelingTasks: true) }
        let answer = try await session.data(for: HTTPRequest(url: URL(string: "http://sluice-socket.invalid/status")!))
        #expect(answer.response.statusCode == 200)
        #expect(String(decoding: answer.data, as: UTF8.self) == "ok\n")
        let file = try await session.data(for: HTTPRequest(url: URL(string: "http://sluice-socket.invalid/plugins/text.txt")!))
        #expect(file.data == (try TestEnvironment.servedFile("plugins/text.txt")))
    }

    @Test("an http+unix URL names its socket; a redirect on the socket is followed on it")
    func socketURL() async throws {
        let path = try Self.socketPath()
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let session = try Transport.session()
        defer { session.invalidate(cancelingTasks: true) }
        let answer = try await session.data(for: try HTTPRequest(urlString: "http+unix://\(encoded)/status"))
        #expect(answer.response.statusCode == 200)
        var looping = try HTTPRequest(urlString: "http+unix://\(encoded)/relative-loop")
        looping.redirectPolicy = .follow(maximum: 3)
        let error = await #expect(throws: SluiceError.self) { try await session.data(for: looping) }
        // Followed on the socket three times (not refused as a redirect elsewhere).
        #expect(error?.code == .tooManyRedirects)
    }

    @Test("an override routes its own request only: the same host without it does not resolve")
    func overridesStayWithTheirRequest() async throws {
        let http = try TestEnvironment.url(for: .http)
        let https = try TestEnvironment.url(for: .https)
        let session = try Transport.session()
        defer { session.invalidate(cancelingTasks: true) }
        var routed = HTTPRequest(url: URL(string: "http://sluice-override.invalid/status")!)
        routed.connection = ConnectionSettings(overrides: [
            ConnectionOverride(host: "sluice-override.invalid", port: 80, targetHost: "127.0.0.1", targetPort: http.port!),
        ])
        #expect(try await session.data(for: routed).response.statusCode == 200)
        let plain = await #expect(throws: SluiceError.self) {
            try await session.data(for: HTTPRequest(url: URL(string: "http://sluice-override.invalid/status")!))
        }
        #expect(plain?.code == .cannotResolveHost)

        // Over TLS the request keeps its name: the certificate is checked for localhost.
        var secure = HTTPRequest(url: URL(string: "https://localhost/status")!)
        secure.connection = ConnectionSettings(overrides: [ConnectionOverride(host: "localhost", port: 443, targetHost: "127.0.0.1", targetPort: https.port!)])
        #expect(try await session.data(for: secure).response.statusCode == 200)

        let sessionWide = try Transport.session {
            $0.connection.overrides = [ConnectionOverride(host: "sluice-override.invalid", targetHost: "127.0.0.1", targetPort: http.port!)]
        }
        defer { sessionWide.invalidate(cancelingTasks: true) }
        #expect(try await sessionWide.data(for: HTTPRequest(url: URL(string: "http://sluice-override.invalid/status")!)).response.statusCode == 200)
    }

    @Test("the address family: IPv4 reaches nginx on 127.0.0.1 by name, IPv6 alone cannot")
    func addressFamily() async throws {
        let http = try TestEnvironment.url(for: .http)
        let byName = URL(string: "http://localhost:\(http.port!)/status")!
        let v4 = try Transport.session { $0.connection.addressFamily = .ipv4 }
        defer { v4.invalidate(cancelingTasks: true) }
        #expect(try await v4.data(for: HTTPRequest(url: byName)).response.statusCode == 200)
        let v6 = try Transport.session { $0.connection.addressFamily = .ipv6 }
        defer { v6.invalidate(cancelingTasks: true) }
        let error = await #expect(throws: SluiceError.self) { try await v6.data(for: HTTPRequest(url: byName)) }
        #expect([SluiceError.Code.cannotConnect, .cannotResolveHost].contains(error?.code))
    }

    @Test("the local interface: from 127.0.0.1 the request goes out; from an interface that does not exist it is cannotConnect")
    func localInterface() async throws {
        let request = try Transport.request(.http, "/status")
        let loopback = try Transport.session { $0.connection.localInterface = "host!127.0.0.1" }
        defer { loopback.invalidate(cancelingTasks: true) }
        #expect(try await loopback.data(for: request).response.statusCode == 200)
        let missing = try Transport.session { $0.connection.localInterface = "if!sluice-none0" }
        defer { missing.invalidate(cancelingTasks: true) }
        let error = await #expect(throws: SluiceError.self) { try await missing.data(for: request) }
        #expect(error?.code == .cannotConnect)
    }

    @Test("malformed settings fail the request before anything is sent")
    func invalidSettings() async throws {
        let session = try Transport.session { $0.connection.unixSocketPath = "" }
        defer { session.invalidate(cancelingTasks: true) }
        let error = await #expect(throws: SluiceError.self) { try await session.data(for: Transport.request(.http, "/status")) }
        #expect(error?.code == .invalidConnectionSettings)
        #expect(error?.request != nil)
    }
}
