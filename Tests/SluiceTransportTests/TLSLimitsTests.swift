import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// TLS versions and cipher suites chosen by the client, and identities from PKCS#12 archives, against
/// nginx, which logs the protocol and cipher each request came over.
@Suite("TLS limits and PKCS#12 identities", .tags(.server), .needsServers)
struct TLSLimitsTests {
    struct LogLine: Decodable {
        let uri: String
        let ssl_protocol: String
        let ssl_cipher: String
    }

    /// A request's URI, which no other request uses, and the size of nginx's access log before it was sent
    /// (its line comes after that).
    struct Sent {
        let uri: String
        let logOffset: UInt64
    }

    /// nginx's line for `sent` (waited for: nginx writes it after the response).
    static func logged(_ sent: Sent) async throws -> LogLine {
        let path = try #require(TestEnvironment.requireServers().nginxAccessLog, "the test environment names no nginx access log")
        let text = try await Wait.forLines(containing: sent.uri, inFile: path, from: sent.logOffset)
        let line = text.split(separator: "\n").reversed().lazy
            .compactMap({ try? JSONDecoder().decode(LogLine.self, from: Data($0.utf8)) }).first(where: { $0.uri == sent.uri })
        return try #require(line, "nginx's line for \(sent.uri) is not a log line of the expected form")
    }

    /// A GET of a URI no other request uses, over a fresh session with `adjust`ed TLS settings.
    static func get(_ adjust: (inout TLSConfiguration) -> Void) async throws -> (DataResponse, Sent) {
        let logOffset = try TestEnvironment.requireServers().nginxAccessLog.map { Wait.fileSize($0) } ?? 0
        let sent = Sent(uri: "/status?tls=\(UUID().uuidString)", logOffset: logOffset)
        let session = try Transport.session { adjust(&$0.tls) }
        defer { session.invalidate(cancelingTasks: true) }
        return (try await session.data(for: try Transport.request(.https, sent.uri)), sent)
    }

    @Test("a maximum version: TLS 1.2 when capped there, TLS 1.3 otherwise; a maximum below the minimum is refused before connecting")
    func versions() async throws {
        let (_, free) = try await Self.get { _ in }
        #expect(try await Self.logged(free).ssl_protocol == "TLSv1.3")
        let (_, capped) = try await Self.get { $0.maximumVersion = .tls1_2 }
        #expect(try await Self.logged(capped).ssl_protocol == "TLSv1.2")
        let error = await #expect(throws: SluiceError.self) {
            _ = try await Self.get {
                $0.minimumVersion = .tls1_3
                $0.maximumVersion = .tls1_2
            }
        }
        #expect(error?.code == .invalidSecurityPolicy)
    }

    @Test("cipher lists for TLS 1.2 and TLS 1.3 suites are what the server sees; a list naming no suite is tlsFailed")
    func ciphers() async throws {
        let (_, legacy) = try await Self.get {
            $0.maximumVersion = .tls1_2
            $0.cipherList = "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
        }
        #expect(try await Self.logged(legacy).ssl_cipher.contains("CHACHA20-POLY1305"))
        let (_, modern) = try await Self.get { $0.tls13CipherSuites = "TLS_CHACHA20_POLY1305_SHA256" }
        let line = try await Self.logged(modern)
        #expect(line.ssl_protocol == "TLSv1.3" && line.ssl_cipher == "TLS_CHACHA20_POLY1305_SHA256")
        for adjust: (inout TLSConfiguration) -> Void in [
            { $0.maximumVersion = .tls1_2; $0.cipherList = "NO-SUCH-CIPHER" },
            { $0.minimumVersion = .tls1_3; $0.tls13CipherSuites = "TLS_NO_SUCH_SUITE" },
        ] {
            let error = await #expect(throws: SluiceError.self) { _ = try await Self.get(adjust) }
            #expect(error?.code == .tlsFailed)
        }
    }

    @Test("a PKCS#12 identity with its passphrase passes mutual TLS; a wrong passphrase or bytes that are no archive fail at once")
    func pkcs12() async throws {
        let servers = try TestEnvironment.requireServers()
        let archive = try #require(servers.values["SLUICE_CLIENT_P12"], "the test environment names no PKCS#12 archive")
        let passphrase = try #require(servers.values["SLUICE_CLIENT_KEY_PASSPHRASE"])
        let identity = try TLSConfiguration.ClientIdentity(pkcs12File: archive, passphrase: passphrase)
        #expect(String(decoding: identity.certificatePEM, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: identity.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let session = try Transport.session { $0.tls.clientIdentity = identity }
        defer { session.invalidate(cancelingTasks: true) }
        #expect(try await session.data(for: Transport.request(.mutualTLSStrict, "/status")).response.statusCode == 200)

        for (data, phrase) in [(try Data(contentsOf: URL(fileURLWithPath: archive)), "wrong"), (Data("not an archive".utf8), passphrase)] {
            let error = #expect(throws: SluiceError.self) { _ = try TLSConfiguration.ClientIdentity(pkcs12: data, passphrase: phrase) }
            #expect(error?.code == .invalidClientIdentity)
        }
        #expect(throws: SluiceError.self) { _ = try TLSConfiguration.ClientIdentity(pkcs12File: "/nonexistent.p12") }
    }

    @Test("a server that requires a client certificate, none given: clientCertificateRejected, not connectionLost")
    func missingIdentity() async throws {
        // (A certificate nginx does not trust passes the handshake there and is answered 400; a server that
        // refuses it with a TLS alert is mapped to clientCertificateRejected too: CurlErrorMappingTests.)
        let none = try Transport.session()
        defer { none.invalidate(cancelingTasks: true) }
        let missing = await #expect(throws: SluiceError.self) { try await none.data(for: Transport.request(.mutualTLSStrict, "/status")) }
        #expect(missing?.code == .clientCertificateRejected)
    }
}
