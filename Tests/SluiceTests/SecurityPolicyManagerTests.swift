import Foundation
import Sluice
import SluiceTestSupport
import Testing

@Suite("HTTPSessionManager security policy", .tags(.server), .needsServers, .serialized)
struct SecurityPolicyManagerTests {
    static func certificate(_ path: String?) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try #require(path)))
    }

    @Test("a pinning policy needs an https base URL; AFNetworking's refused policies are typed errors")
    func validation() throws {
        let servers = try TestEnvironment.requireServers()
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate(servers.caFile)])
        let plain = #expect(throws: SluiceError.self) {
            try HTTPSessionManager(baseURL: URL(string: "http://example.com/api"), securityPolicy: pinned)
        }
        #expect(plain?.code == .invalidSecurityPolicy)
        let noPins = #expect(throws: SluiceError.self) {
            try HTTPSessionManager(baseURL: URL(string: "https://example.com"), securityPolicy: SecurityPolicy(pinningMode: .certificate))
        }
        #expect(noPins?.code == .invalidSecurityPolicy)
        let manager = try HTTPSessionManager(baseURL: URL(string: "https://example.com/api"), securityPolicy: pinned)
        #expect(manager.securityPolicy?.pinningMode == .publicKey)
        #expect(HTTPSessionManager().securityPolicy == nil)
    }

    @Test("a public-key pin in the served chain lets requests through; a wrong pin stops them")
    func pinning() async throws {
        let servers = try TestEnvironment.requireServers()
        let base = try TestEnvironment.url(for: .https)
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate(servers.caFile)])
        policy.trustedCertificates = [try Self.certificate(servers.caFile)]
        let manager = try HTTPSessionManager(baseURL: base, securityPolicy: policy)
        manager.responseSerializer = HTTPResponseSerializer()
        #expect(try await manager.get("status").response.statusCode == 200)

        var wrong = policy
        wrong.pinnedCertificates = [try Self.certificate(servers.clientCertificate)]
        let refused = try HTTPSessionManager(baseURL: base, securityPolicy: wrong)
        refused.responseSerializer = HTTPResponseSerializer()
        let error = await #expect(throws: SluiceError.self) { try await refused.get("status") }
        #expect(error?.code == .pinnedKeyMismatch)
    }
}
