import Foundation
import Sluice

// Samples of docs/security.md and the pinning part of docs/getting-started.md, compiled (not run:
// they read certificates from example paths).
enum SecuritySamples {
    static func policy() throws -> SessionManager {
        let pins = try SecurityPolicy.certificates(inDirectory: URL(fileURLWithPath: "/etc/myapp/pins"))
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)

        var configuration = SessionConfiguration()
        try configuration.apply(policy, baseURL: URL(string: "https://api.example.com")!)   // Sluice umbrella
        // or, with SluiceSecurity and SluiceTransport alone:
        configuration.tls = try policy.tlsConfiguration(for: URL(string: "https://api.example.com")!)
        let session = SessionManager(configuration: configuration)
        return session
    }

    static func perHost(configuration: inout SessionConfiguration, apiPins: [Data], devCertificate: Data) throws {
        let manager = ServerTrustManager(
            defaultPolicy: .defaultPolicy,
            policies: [
                "api.example.com": SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: apiPins),
                "localhost": SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [devCertificate],
                                            allowInvalidCertificates: true),
            ])
        try configuration.apply(manager)               // Sluice umbrella
        // or: let settings = try manager.tlsConfigurations()
        //     configuration.tls = settings.default; configuration.tlsByHost = settings.byHost
    }

    static func gettingStartedPinning() throws -> HTTPSessionManager {
        let pinned = try SecurityPolicy(
            pinningMode: .publicKey,
            pinnedCertificates: SecurityPolicy.certificates(inDirectory: URL(fileURLWithPath: "/etc/myapp/pins")))
        let secure = try HTTPSessionManager(baseURL: URL(string: "https://api.example.com"), securityPolicy: pinned)
        return secure
    }
}
