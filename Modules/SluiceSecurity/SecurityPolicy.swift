import Foundation
import SluiceCore

/// How a session decides to trust HTTPS servers: AFNetworking's `AFSecurityPolicy` for Linux, with
/// certificate and public-key pinning, plus custom CAs, a client identity and a minimum TLS version.
///
/// A policy is a description; ``tlsConfiguration(for:)`` checks it and turns it into the
/// ``TLSConfiguration`` the transport applies to libcurl (the umbrella module's
/// `SessionConfiguration.apply(_:baseURL:)` does both). Every trust failure ends the task with its own
/// error code before the request is sent: ``SluiceError/Code/untrustedChain``,
/// ``SluiceError/Code/hostMismatch``, ``SluiceError/Code/certificateExpired``,
/// ``SluiceError/Code/certificateNotYetValid``, ``SluiceError/Code/pinnedCertificateMissing``,
/// ``SluiceError/Code/pinnedKeyMismatch``, ``SluiceError/Code/clientCertificateRejected``.
///
/// ```swift
/// var policy = SecurityPolicy(pinningMode: .publicKey,
///                             pinnedCertificates: try SecurityPolicy.certificates(inDirectory: pinsFolder))
/// var configuration = SessionConfiguration()
/// configuration.tls = try policy.tlsConfiguration(for: URL(string: "https://api.example.com")!)
/// ```
///
/// Evaluation follows AFNetworking: the chain must be trusted (unless ``allowInvalidCertificates``) and
/// name the host (if ``validatesDomainName``); then, with pinning, the leaf, an intermediate or the root
/// of the chain must be pinned (certificate mode) or have a pinned public key (public-key mode). With
/// ``allowInvalidCertificates`` and certificate pinning, the pinned certificates are the only trust
/// anchors, so a pinned self-signed certificate passes and an unpinned one does not.
public struct SecurityPolicy: Sendable, Hashable {
    /// What the server's chain is pinned against. Default ``SSLPinningMode/none``.
    public var pinningMode: SSLPinningMode
    /// The pinned certificates: each element DER, or PEM holding one or more certificates. With
    /// ``SSLPinningMode/publicKey`` their public keys are what counts. Default none.
    public var pinnedCertificates: [Data]
    /// Whether a chain that does not lead to a trusted CA (self-signed, unknown issuer, expired) is
    /// accepted. With pinning the pins still decide; without it, it may only be combined with
    /// ``validatesDomainName`` off. Default `false`.
    public var allowInvalidCertificates: Bool
    /// Whether the server's certificate must name the host connected to. Default `true`.
    public var validatesDomainName: Bool
    /// CA certificates to trust, each element DER or PEM (one or more certificates): added to the system
    /// store, or replacing it with ``replacesSystemTrustStore``. Default none.
    public var trustedCertificates: [Data]
    /// Whether ``trustedCertificates`` replace the system store instead of joining it. Default `false`.
    public var replacesSystemTrustStore: Bool
    /// The certificate and key presented to servers that ask for one (mutual TLS). Default `nil`.
    public var clientIdentity: TLSConfiguration.ClientIdentity?
    /// The oldest TLS version accepted. Default ``TLSConfiguration/Version/tls1_2``.
    public var minimumTLSVersion: TLSConfiguration.Version

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - pinningMode: What to pin against. Default ``SSLPinningMode/none``.
    ///   - pinnedCertificates: DER or PEM certificates to pin. Default none.
    ///   - allowInvalidCertificates: Whether untrusted chains may pass. Default `false`.
    ///   - validatesDomainName: Whether the certificate must name the host. Default `true`.
    public init(
        pinningMode: SSLPinningMode = .none, pinnedCertificates: [Data] = [], allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true
    ) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.trustedCertificates = []
        self.replacesSystemTrustStore = false
        self.clientIdentity = nil
        self.minimumTLSVersion = .tls1_2
    }

    /// The system trust store, the host name checked, no pinning: what a session does without a policy.
    public static var defaultPolicy: SecurityPolicy { SecurityPolicy() }

    // MARK: Checking and applying

    /// Checks the policy, and its use for a session whose requests go to `baseURL`.
    ///
    /// - Parameter baseURL: The session's base URL, or `nil` when there is none. Default `nil`.
    /// - Throws: ``SluiceError/Code/invalidSecurityPolicy`` for pinning without pinned certificates,
    ///   pinning with a `baseURL` that is not `https`, or invalid certificates allowed with domain
    ///   validation on and no pinning (AFNetworking refuses these too);
    ///   ``SluiceError/Code/invalidCertificate`` for a pinned or trusted certificate that cannot be read;
    ///   ``SluiceError/Code/invalidClientIdentity`` for a client certificate that is not PEM.
    public func validate(for baseURL: URL? = nil) throws(SluiceError) {
        _ = try resolved(for: baseURL)
    }

    /// The TLS settings that carry out the policy, after ``validate(for:)``.
    ///
    /// - Parameter baseURL: The session's base URL, or `nil`. Default `nil`.
    /// - Throws: As ``validate(for:)``.
    public func tlsConfiguration(for baseURL: URL? = nil) throws(SluiceError) -> TLSConfiguration {
        let resolved = try resolved(for: baseURL)
        var tls = TLSConfiguration(
            verifiesHost: validatesDomainName, clientIdentity: clientIdentity, minimumVersion: minimumTLSVersion)
        if !resolved.trusted.isEmpty {
            if replacesSystemTrustStore {
                tls.trustedCertificatesPEM = CertificateDecoder.pem(resolved.trusted)
            } else {
                tls.additionalTrustedCertificatesPEM = CertificateDecoder.pem(resolved.trusted)
            }
        }
        switch pinningMode {
        case .none:
            tls.verifiesPeer = !allowInvalidCertificates
        case .certificate where allowInvalidCertificates:
            // The pins are the only trust anchors; partial-chain verification lets a pinned leaf or
            // intermediate anchor the chain, and OpenSSL still checks signatures and dates up to it.
            tls.trustedCertificatesPEM = CertificateDecoder.pem(resolved.pinned)
            tls.additionalTrustedCertificatesPEM = nil
            tls.trustedCertificatesArePinned = true
            tls.allowsPartialChain = true
        case .certificate:
            tls.serverTrustEvaluator = PinningEvaluator(pins: .certificates(Set(resolved.pinned)))
        case .publicKey:
            tls.verifiesPeer = !allowInvalidCertificates
            var keys = Set<String>()
            for certificate in resolved.pinned { keys.insert(try CertificateDecoder.publicKeyPin(of: certificate)) }
            tls.serverTrustEvaluator = PinningEvaluator(pins: .publicKeys(keys))
        }
        return tls
    }

    /// The public keys of ``pinnedCertificates`` as `sha256//<base64 SHA-256 of the SubjectPublicKeyInfo>`,
    /// libcurl's `CURLOPT_PINNEDPUBLICKEY` format (usable as ``TLSConfiguration/pinnedPublicKeys``,
    /// which checks the leaf only).
    ///
    /// - Throws: ``SluiceError/Code/invalidCertificate`` for a certificate that cannot be read.
    public func pinnedPublicKeyHashes() throws(SluiceError) -> [String] {
        var hashes: [String] = []
        for certificate in try Self.certificates(in: pinnedCertificates, named: "pinned certificate") {
            hashes.append(try CertificateDecoder.publicKeyPin(of: certificate))
        }
        return hashes
    }

    // MARK: Internals

    /// The pinned and trusted certificates as single DER certificates, once the policy passed its checks.
    private func resolved(for baseURL: URL?) throws(SluiceError) -> (pinned: [Data], trusted: [Data]) {
        if pinningMode != .none, let baseURL, baseURL.scheme?.lowercased() != "https" {
            throw SluiceError(
                .invalidSecurityPolicy,
                "a policy with \(pinningMode) pinning needs an https base URL, not \(baseURL.absoluteString)")
        }
        let pinned = try Self.certificates(in: pinnedCertificates, named: "pinned certificate")
        if pinningMode != .none && pinned.isEmpty {
            throw SluiceError(.invalidSecurityPolicy, "\(pinningMode) pinning needs at least one pinned certificate")
        }
        if allowInvalidCertificates && validatesDomainName && pinningMode == .none {
            throw SluiceError(
                .invalidSecurityPolicy,
                "validating the domain name of a certificate that need not be trusted takes pinning: pin the "
                    + "certificate, or turn validatesDomainName off")
        }
        let trusted = try Self.certificates(in: trustedCertificates, named: "trusted certificate")
        if let identity = clientIdentity {
            do {
                _ = try CertificateDecoder.derCertificates(in: identity.certificatePEM, source: "the client certificate")
            } catch {
                throw SluiceError(.invalidClientIdentity, error.message, underlying: error)
            }
        }
        return (pinned, trusted)
    }

    /// Each element's certificates, in order.
    private static func certificates(in items: [Data], named name: String) throws(SluiceError) -> [Data] {
        var certificates: [Data] = []
        for (index, item) in items.enumerated() {
            certificates += try CertificateDecoder.derCertificates(in: item, source: "\(name) \(index + 1)")
        }
        return certificates
    }
}
