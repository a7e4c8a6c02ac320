import Foundation

/// The TLS settings a transport applies to a connection: what to trust, what to pin, which identity
/// to present. `SluiceSecurity`'s `SecurityPolicy` produces it; it can also be written by hand.
public struct TLSConfiguration: Sendable, Hashable {
    /// The oldest TLS version accepted.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        /// TLS 1.0
        case tls1_0
        /// TLS 1.1
        case tls1_1
        /// TLS 1.2, the default.
        case tls1_2
        /// TLS 1.3
        case tls1_3
    }

    /// A certificate and private key presented to servers that ask for one (mutual TLS).
    public struct ClientIdentity: Sendable, Hashable {
        /// The certificate chain, PEM.
        public var certificatePEM: Data
        /// The private key, PEM.
        public var privateKeyPEM: Data
        /// The key's passphrase, when it is encrypted. Default `nil`.
        public var passphrase: String?

        /// Creates an identity from PEM bytes.
        public init(certificatePEM: Data, privateKeyPEM: Data, passphrase: String? = nil) {
            self.certificatePEM = certificatePEM
            self.privateKeyPEM = privateKeyPEM
            self.passphrase = passphrase
        }
    }

    /// Whether the server's chain must lead to a trusted root. Default `true`.
    public var verifiesPeer: Bool
    /// Whether the certificate must name the host connected to. Default `true`.
    public var verifiesHost: Bool
    /// Trusted CA certificates (PEM) that replace the system store, or `nil` for the system store.
    /// Default `nil`.
    public var trustedCertificatesPEM: Data?
    /// Whether a chain that ends at any trusted certificate, not only at a self-signed root, is
    /// accepted (OpenSSL's partial-chain verification), so a pinned leaf or intermediate can be the
    /// anchor. Default `true`.
    public var allowsPartialChain: Bool
    /// Public-key pins as `sha256//<base64 of the SPKI hash>`; when not empty, the server's key must
    /// match one. Default none.
    public var pinnedPublicKeys: [String]
    /// The identity for mutual TLS, or `nil`. Default `nil`.
    public var clientIdentity: ClientIdentity?
    /// The oldest TLS version accepted. Default ``Version/tls1_2``.
    public var minimumVersion: Version

    /// Creates settings; the defaults verify the chain and host name against the system store.
    public init(
        verifiesPeer: Bool = true, verifiesHost: Bool = true, trustedCertificatesPEM: Data? = nil,
        allowsPartialChain: Bool = true, pinnedPublicKeys: [String] = [], clientIdentity: ClientIdentity? = nil,
        minimumVersion: Version = .tls1_2
    ) {
        self.verifiesPeer = verifiesPeer
        self.verifiesHost = verifiesHost
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.allowsPartialChain = allowsPartialChain
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientIdentity = clientIdentity
        self.minimumVersion = minimumVersion
    }

    /// System trust store, host name checked, TLS 1.2 or later.
    public static let `default` = TLSConfiguration()
}
