import Foundation
import SluiceCore

/// Security policies by host, with a default for every other host: Alamofire's `ServerTrustManager`.
///
/// ```swift
/// let manager = ServerTrustManager(policies: [
///     "api.example.com": SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [apiCertificate]),
///     "localhost": SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [devCertificate],
///                                 allowInvalidCertificates: true),
/// ])
/// let settings = try manager.tlsConfigurations()
/// configuration.tls = settings.default
/// configuration.tlsByHost = settings.byHost
/// ```
///
/// Hosts are matched exactly (no wildcards), without regard to case; an IPv6 address is written
/// without brackets. A redirect to another host is judged by that host's policy.
public struct ServerTrustManager: Sendable, Hashable {
    /// The policy of every host not in ``policies``. Default ``SecurityPolicy/defaultPolicy``.
    public var defaultPolicy: SecurityPolicy
    /// Policies by host name. Default none.
    public var policies: [String: SecurityPolicy]

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - defaultPolicy: For hosts without a policy of their own. Default ``SecurityPolicy/defaultPolicy``.
    ///   - policies: Policies by host name. Default none.
    public init(defaultPolicy: SecurityPolicy = .defaultPolicy, policies: [String: SecurityPolicy] = [:]) {
        self.defaultPolicy = defaultPolicy
        self.policies = policies
    }

    /// The policy for `host`: its own, else ``defaultPolicy``.
    public func policy(forHost host: String) -> SecurityPolicy {
        let key = host.lowercased()
        return policies.first { $0.key.lowercased() == key }?.value ?? defaultPolicy
    }

    /// The TLS settings of every policy: the default one and one per host (lowercased), for
    /// `SessionConfiguration.tls` and `SessionConfiguration.tlsByHost`.
    ///
    /// - Throws: As ``SecurityPolicy/tlsConfiguration(for:)``, naming the host whose policy failed.
    public func tlsConfigurations() throws(SluiceError) -> (default: TLSConfiguration, byHost: [String: TLSConfiguration]) {
        let defaultTLS: TLSConfiguration
        do {
            defaultTLS = try defaultPolicy.tlsConfiguration()
        } catch {
            throw SluiceError(error.code, "the default policy: \(error.message)", underlying: error)
        }
        var byHost: [String: TLSConfiguration] = [:]
        for (host, policy) in policies {
            do {
                byHost[host.lowercased()] = try policy.tlsConfiguration()
            } catch {
                throw SluiceError(error.code, "the policy for \(host): \(error.message)", underlying: error)
            }
        }
        return (defaultTLS, byHost)
    }
}
