import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// Connection settings without a socket: what is refused, how an override reads for curl, which
/// redirects may reach a Unix socket.
@Suite("Connection settings: validation and planning")
struct ConnectionSettingsTests {
    struct Row: Sendable, CustomStringConvertible {
        let settings: ConnectionSettings
        let valid: Bool
        var description: String { "\(settings)" }
    }

    static let rows: [Row] = [
        Row(settings: .default, valid: true),
        Row(settings: ConnectionSettings(unixSocketPath: "/var/run/docker.sock"), valid: true),
        Row(settings: ConnectionSettings(unixSocketPath: ""), valid: false),
        Row(settings: ConnectionSettings(unixSocketPath: "/" + String(repeating: "s", count: 107)), valid: false),
        Row(settings: ConnectionSettings(unixSocketPath: "/tmp/a\u{0}b"), valid: false),
        Row(settings: ConnectionSettings(overrides: [ConnectionOverride(host: "api.example.com", port: 443, targetHost: "10.0.0.7", targetPort: 8443)]), valid: true),
        Row(settings: ConnectionSettings(overrides: [ConnectionOverride(targetHost: "::1")]), valid: true),
        Row(settings: ConnectionSettings(overrides: [ConnectionOverride(host: "a:b.example")]), valid: false),
        Row(settings: ConnectionSettings(overrides: [ConnectionOverride(host: "a.example", targetHost: "b.example/x")]), valid: false),
        Row(settings: ConnectionSettings(overrides: [ConnectionOverride(port: 0)]), valid: false),
        Row(settings: ConnectionSettings(overrides: [ConnectionOverride(targetHost: "h", targetPort: 65536)]), valid: false),
        Row(settings: ConnectionSettings(localInterface: "if!lo"), valid: true),
        Row(settings: ConnectionSettings(localInterface: ""), valid: false),
        Row(settings: ConnectionSettings(expectContinueThreshold: 0), valid: true),
        Row(settings: ConnectionSettings(expectContinueThreshold: -1), valid: false),
        Row(settings: ConnectionSettings(expectContinueTimeout: 0), valid: false),
        Row(settings: ConnectionSettings(expectContinueTimeout: .infinity), valid: false),
    ]

    @Test("settings are checked: each malformed one is invalidConnectionSettings", arguments: rows)
    func validation(row: Row) {
        do {
            try row.settings.validate()
            #expect(row.valid)
        } catch {
            #expect(!row.valid)
            #expect(error.code == .invalidConnectionSettings)
        }
    }

    @Test("an override reads as curl's HOST:PORT:TARGET:TARGET_PORT, empty parts for any or the same, IPv6 in brackets")
    func overrideText() {
        #expect(ConnectionOverride(host: "api.example.com", port: 443, targetHost: "10.0.0.7", targetPort: 8443).description
            == "api.example.com:443:10.0.0.7:8443")
        #expect(ConnectionOverride(host: "a.example", targetHost: "::1").description == "a.example::[::1]:")
        #expect(ConnectionOverride(port: 80, targetPort: 8080).description == ":80::8080")
    }

    @Test("a redirect may reach a Unix socket only from the same socket")
    func socketRedirects() throws {
        let socket = URL(string: "http+unix://%2Frun%2Fa.sock/v1/x")!
        #expect(RedirectPlanner.mayRedirect(from: socket, to: URL(string: "http+unix://%2Frun%2Fa.sock/v1/y")!))
        #expect(!RedirectPlanner.mayRedirect(from: socket, to: URL(string: "http+unix://%2Frun%2Fb.sock/v1/y")!))
        #expect(!RedirectPlanner.mayRedirect(from: URL(string: "https://example.com/")!, to: socket))
        #expect(RedirectPlanner.mayRedirect(from: socket, to: URL(string: "https://example.com/")!))
        #expect(!RedirectPlanner.mayRedirect(from: socket, to: URL(string: "file:///etc/passwd")!))
    }

    @Test("http+unix and https+unix URLs are requests; other +unix schemes are not")
    func socketURLs() throws {
        try HTTPRequest(url: URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/info")!).validateForSending()
        try HTTPRequest(url: URL(string: "HTTPS+UNIX://%2Ftmp%2Fs.sock/")!).validateForSending()
        #expect(throws: SluiceError.self) { try HTTPRequest(url: URL(string: "ftp+unix://%2Ftmp%2Fs.sock/")!).validateForSending() }
        #expect(HTTPRequest.unixSocketScheme("Http+Unix") == "http")
        #expect(HTTPRequest.unixSocketScheme("unix") == nil)
    }
}
