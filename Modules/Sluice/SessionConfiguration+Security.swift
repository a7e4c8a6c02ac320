import Foundation
import SluiceCore
import SluiceSecurity
import SluiceTransport

extension SessionConfiguration {
    /// Makes `policy` decide trust for every host: sets ``SessionConfiguration/tls`` to the policy's
    /// settings and clears ``SessionConfiguration/tlsByHost``.
    ///
    /// ```swift
    /// var configuration = SessionConfiguration()
    /// try configuration.apply(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [leaf]),
    ///                         baseURL: URL(string: "https://api.example.com")!)
    /// ```
    ///
    /// - Parameters:
    ///   - policy: The policy.
    ///   - baseURL: Where the session's requests go, checked against the policy (pinning needs https).
    ///     Default `nil`.
    /// - Throws: As `SecurityPolicy.tlsConfiguration(for:)`; the configuration is unchanged then.
    public mutating func apply(_ policy: SecurityPolicy, baseURL: URL? = nil) throws(SluiceError) {
        tls = try policy.tlsConfiguration(for: baseURL)
        tlsByHost = [:]
    }

    /// Makes `manager`'s policies decide trust: its default policy for ``SessionConfiguration/tls``
    /// and its per-host policies for ``SessionConfiguration/tlsByHost``.
    ///
    /// - Throws: As `ServerTrustManager.tlsConfigurations()`; the configuration is unchanged then.
    public mutating func apply(_ manager: ServerTrustManager) throws(SluiceError) {
        let settings = try manager.tlsConfigurations()
        tls = settings.default
        tlsByHost = settings.byHost
    }
}
