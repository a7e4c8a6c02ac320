import Foundation
import SluiceCore
import SluiceSecurity
import Testing

@Suite("ServerTrustManager")
struct ServerTrustManagerTests {
    @Test("a host's own policy, matched without regard to case, else the default")
    func lookup() throws {
        let pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try TestCertificates().leaf])
        let manager = ServerTrustManager(policies: ["API.example.com": pinned, "::1": .init(validatesDomainName: false)])
        #expect(manager.policy(forHost: "api.example.com") == pinned)
        #expect(manager.policy(forHost: "Api.Example.Com") == pinned)
        #expect(manager.policy(forHost: "example.com") == .defaultPolicy)
        #expect(!manager.policy(forHost: "::1").validatesDomainName)
    }

    @Test("TLS settings: the default's, and one per host under its lowercased name")
    func settings() throws {
        let certificates = try TestCertificates()
        var fallback = SecurityPolicy.defaultPolicy
        fallback.trustedCertificates = [certificates.root]
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [certificates.leaf])
        let manager = ServerTrustManager(defaultPolicy: fallback, policies: ["LocalHost": pinned])
        let settings = try manager.tlsConfigurations()
        #expect(settings.default == (try fallback.tlsConfiguration()))
        #expect(Array(settings.byHost.keys) == ["localhost"])
        #expect(settings.byHost["localhost"] == (try pinned.tlsConfiguration()))
    }

    @Test("a host's invalid policy fails the whole manager, naming the host")
    func invalid() {
        let manager = ServerTrustManager(policies: ["api.example.com": SecurityPolicy(pinningMode: .certificate)])
        do {
            _ = try manager.tlsConfigurations()
            Issue.record("accepted a pinning policy without pins")
        } catch {
            #expect(error.code == .invalidSecurityPolicy)
            #expect(error.message.contains("api.example.com"))
        }
        let broken = ServerTrustManager(defaultPolicy: SecurityPolicy(allowInvalidCertificates: true))
        #expect(throws: SluiceError.self) { try broken.tlsConfigurations() }
    }
}
