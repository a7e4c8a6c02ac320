import Foundation

/// The TLS settings a transport applies to a connection: what to trust, what to pin, which identity
/// to present. `SluiceSecurity`'s `SecurityPolicy` produces it; it can also be written by hand.
public struct TLSConfiguration: Sendable, Hashable {
    /// A TLS protocol version.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        /// TLS 1.0
        case tls1_0
        /// TLS 1.1
        case tls1_1
        /// TLS 1.2, the default oldest version.
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
    /// Nothing else is trusted while it is set: neither the system bundle nor libcurl's default CA
    /// directory. Default `nil`.
    public var trustedCertificatesPEM: Data?
    /// CA certificates (PEM) trusted in addition to the store in use: the system store, or
    /// ``trustedCertificatesPEM`` when that is set. Default `nil`.
    public var additionalTrustedCertificatesPEM: Data?
    /// Whether ``trustedCertificatesPEM`` holds pinned certificates rather than CAs: a chain that leads
    /// to none of them then fails with ``SluiceError/Code/pinnedCertificateMissing`` instead of
    /// ``SluiceError/Code/untrustedChain``. Default `false`.
    public var trustedCertificatesArePinned: Bool
    /// Whether a chain that ends at any trusted certificate, not only at a self-signed root, is
    /// accepted (OpenSSL's partial-chain verification), so a pinned leaf or intermediate can be the
    /// anchor. Default `true`.
    public var allowsPartialChain: Bool
    /// Public-key pins as `sha256//<base64 of the SPKI hash>` for libcurl's `CURLOPT_PINNEDPUBLICKEY`:
    /// when not empty, the server's own (leaf) key must match one, or the task fails with
    /// ``SluiceError/Code/pinnedKeyMismatch``. Default none. (`SecurityPolicy`'s public-key pinning
    /// accepts a pinned key anywhere in the chain and uses ``serverTrustEvaluator`` instead.)
    public var pinnedPublicKeys: [String]
    /// The identity for mutual TLS, or `nil`. Default `nil`.
    public var clientIdentity: ClientIdentity?
    /// The oldest TLS version accepted. Default ``Version/tls1_2``.
    public var minimumVersion: Version
    /// The newest TLS version offered, or `nil` for the newest the TLS library has. A maximum older than
    /// ``minimumVersion`` fails each request with ``SluiceError/Code/invalidSecurityPolicy``. Default `nil`.
    public var maximumVersion: Version?
    /// The cipher suites offered for TLS 1.2 and older, in OpenSSL's cipher-list format
    /// (`ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256`), or `nil` for the TLS library's
    /// defaults. A list that names no suite the library has fails the request with `transport.tlsFailed`.
    /// Default `nil`.
    public var cipherList: String?
    /// The TLS 1.3 cipher suites offered (`TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256`), or
    /// `nil` for the TLS library's defaults. A list that names no suite the library has fails the request
    /// with `transport.tlsFailed`. Default `nil`.
    public var tls13CipherSuites: String?
    /// Asked about the server's certificates after the handshake and before each request is sent;
    /// a refusal ends the task with its error. Default `nil` (no evaluation beyond the checks above).
    public var serverTrustEvaluator: (any ServerTrustEvaluator)? {
        get { evaluatorBox?.base }
        set { evaluatorBox = newValue.map(ServerTrustEvaluatorBox.init(base:)) }
    }
    /// The longest the ``serverTrustEvaluator`` may take, in seconds. libcurl asks for the answer on
    /// the session's engine thread, which waits for it (off that thread) and moves no other transfer
    /// meanwhile; an evaluator that has not answered by then fails the task with
    /// ``SluiceError/Code/trustEvaluationTimedOut``. Evaluators must not do I/O; Sluice's own take
    /// microseconds. Default 2.
    public var serverTrustEvaluationTimeout: TimeInterval = 2
    private var evaluatorBox: ServerTrustEvaluatorBox?

    /// Creates settings; the defaults verify the chain and host name against the system store.
    public init(
        verifiesPeer: Bool = true, verifiesHost: Bool = true, trustedCertificatesPEM: Data? = nil,
        additionalTrustedCertificatesPEM: Data? = nil, trustedCertificatesArePinned: Bool = false,
        allowsPartialChain: Bool = true, pinnedPublicKeys: [String] = [], clientIdentity: ClientIdentity? = nil,
        minimumVersion: Version = .tls1_2, serverTrustEvaluator: (any ServerTrustEvaluator)? = nil
    ) {
        self.verifiesPeer = verifiesPeer
        self.verifiesHost = verifiesHost
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.additionalTrustedCertificatesPEM = additionalTrustedCertificatesPEM
        self.trustedCertificatesArePinned = trustedCertificatesArePinned
        self.allowsPartialChain = allowsPartialChain
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientIdentity = clientIdentity
        self.minimumVersion = minimumVersion
        self.evaluatorBox = serverTrustEvaluator.map(ServerTrustEvaluatorBox.init(base:))
    }

    /// System trust store, host name checked, TLS 1.2 or later.
    public static let `default` = TLSConfiguration()
}
