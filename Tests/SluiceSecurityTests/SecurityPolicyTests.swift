import Foundation
import SluiceCore
import SluiceSecurity
import Testing

@Suite("SecurityPolicy")
struct SecurityPolicyTests {
    let certificates: TestCertificates

    init() throws { certificates = try TestCertificates() }

    // MARK: AFNetworking's default values

    @Test("the default policy: no pinning, invalid certificates refused, domain names validated, no pins")
    func defaults() throws {
        let policy = SecurityPolicy.defaultPolicy
        #expect(policy.pinningMode == .none)
        #expect(!policy.allowInvalidCertificates)
        #expect(policy.validatesDomainName)
        #expect(policy.pinnedCertificates.isEmpty)
        #expect(policy.trustedCertificates.isEmpty && !policy.replacesSystemTrustStore)
        #expect(policy.clientIdentity == nil && policy.minimumTLSVersion == .tls1_2)
        #expect(try policy.tlsConfiguration() == .default)
        #expect(SecurityPolicy(pinningMode: .publicKey).validatesDomainName, "pinning keeps domain validation on")
    }

    // MARK: Refused policies

    @Test("refusals AFNetworking makes too are security.invalidPolicy")
    func refusals() {
        let https = URL(string: "https://api.example.com")!
        let cases: [(String, SecurityPolicy, URL?)] = [
            ("invalid allowed, domain validated, no pinning", SecurityPolicy(allowInvalidCertificates: true), nil),
            ("the same with pins but no pinning mode",
             SecurityPolicy(pinnedCertificates: [certificates.leaf], allowInvalidCertificates: true), nil),
            ("certificate pinning without pins", SecurityPolicy(pinningMode: .certificate), https),
            ("public-key pinning without pins", SecurityPolicy(pinningMode: .publicKey, allowInvalidCertificates: true), nil),
            ("pinning for an http base URL",
             SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [certificates.leaf]), URL(string: "http://api.example.com")!),
        ]
        for (name, policy, baseURL) in cases {
            let error = #expect(throws: SluiceError.self, "\(name)") { try policy.validate(for: baseURL) }
            #expect(error?.code == .invalidSecurityPolicy, "\(name)")
            #expect(error?.code.rawValue == "security.invalidPolicy")
        }
        #expect(throws: Never.self) {
            try SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [certificates.leaf]).validate(for: https)
            try SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false).validate()
        }
    }

    @Test("unreadable pins, CAs and client certificates are refused with their own codes")
    func unreadable() {
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Data("not a certificate".utf8)])
        #expect(throws: SluiceError.self) { try policy.validate() }
        #expect((try? policy.validate()) == nil)
        do {
            try policy.validate()
        } catch {
            #expect(error.code == .invalidCertificate)
            #expect(error.message.contains("pinned certificate 1"))
        }
        policy = .defaultPolicy
        policy.trustedCertificates = [Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)]
        #expect(throws: SluiceError.self) { try policy.tlsConfiguration() }
        policy = .defaultPolicy
        policy.clientIdentity = .init(certificatePEM: Data("garbage".utf8), privateKeyPEM: Data())
        do {
            _ = try policy.tlsConfiguration()
            Issue.record("a garbage client certificate was accepted")
        } catch {
            #expect(error.code == .invalidClientIdentity)
        }
    }

    // MARK: What each mode becomes

    @Test("no pinning: the trust store decides; allowing invalid certificates turns peer verification off")
    func noPinning() throws {
        var policy = SecurityPolicy(validatesDomainName: false)
        var tls = try policy.tlsConfiguration()
        #expect(tls.verifiesPeer && !tls.verifiesHost && tls.serverTrustEvaluator == nil)
        policy.allowInvalidCertificates = true
        tls = try policy.tlsConfiguration()
        #expect(!tls.verifiesPeer && !tls.verifiesHost)
    }

    @Test("certificate pinning: an evaluator over the verified chain; with invalid allowed, the pins become the only anchors")
    func certificatePinning() throws {
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [TestCertificates.pem(certificates.intermediate)])
        policy.trustedCertificates = [certificates.root]
        var tls = try policy.tlsConfiguration(for: URL(string: "https://localhost")!)
        #expect(tls.verifiesPeer && tls.verifiesHost)
        #expect(tls.serverTrustEvaluator != nil)
        #expect(tls.additionalTrustedCertificatesPEM == TestCertificates.pem(certificates.root))
        #expect(tls.trustedCertificatesPEM == nil && !tls.trustedCertificatesArePinned)

        policy.allowInvalidCertificates = true
        tls = try policy.tlsConfiguration()
        #expect(tls.verifiesPeer && tls.allowsPartialChain)
        #expect(tls.trustedCertificatesPEM == TestCertificates.pem(certificates.intermediate))
        #expect(tls.trustedCertificatesArePinned)
        #expect(tls.additionalTrustedCertificatesPEM == nil, "the pins are the only anchors")
        #expect(tls.serverTrustEvaluator == nil, "OpenSSL's verification against the pins is the check")
    }

    @Test("public-key pinning: an evaluator; with invalid allowed, peer verification is off but the pins still decide")
    func publicKeyPinning() throws {
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [certificates.leaf])
        var tls = try policy.tlsConfiguration()
        #expect(tls.verifiesPeer && tls.serverTrustEvaluator != nil)
        policy.allowInvalidCertificates = true
        tls = try policy.tlsConfiguration()
        #expect(!tls.verifiesPeer && tls.verifiesHost && tls.serverTrustEvaluator != nil)
        #expect(tls.pinnedPublicKeys.isEmpty, "libcurl's pin checks the leaf only; the evaluator checks the chain")
    }

    @Test("custom CAs join the system store, or replace it; identity and minimum version pass through")
    func additions() throws {
        var policy = SecurityPolicy.defaultPolicy
        policy.trustedCertificates = [TestCertificates.pem(certificates.root, certificates.intermediate)]
        policy.minimumTLSVersion = .tls1_3
        let identity = TLSConfiguration.ClientIdentity(
            certificatePEM: TestCertificates.pem(certificates.leaf), privateKeyPEM: Data("key".utf8), passphrase: "secret")
        policy.clientIdentity = identity
        var tls = try policy.tlsConfiguration()
        #expect(tls.additionalTrustedCertificatesPEM == TestCertificates.pem(certificates.root, certificates.intermediate))
        #expect(tls.trustedCertificatesPEM == nil)
        #expect(tls.minimumVersion == .tls1_3 && tls.clientIdentity == identity)
        policy.replacesSystemTrustStore = true
        tls = try policy.tlsConfiguration()
        #expect(tls.trustedCertificatesPEM == TestCertificates.pem(certificates.root, certificates.intermediate))
        #expect(tls.additionalTrustedCertificatesPEM == nil)
    }

    @Test("public-key hashes are libcurl's sha256// pins of the SubjectPublicKeyInfo")
    func publicKeyHashes() throws {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [certificates.leaf, certificates.root])
        #expect(try policy.pinnedPublicKeyHashes() == [
            TestCertificates.pin(certificates.leafKey.publicKey), TestCertificates.pin(certificates.rootKey.publicKey),
        ])
    }

    @Test("policies are values: equal when their settings are, and so are their TLS settings")
    func equality() throws {
        let a = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [certificates.leaf])
        var b = a
        #expect(a == b)
        #expect(try a.tlsConfiguration() == b.tlsConfiguration())
        b.pinnedCertificates.append(certificates.root)
        #expect(a != b)
        #expect(try a.tlsConfiguration() != b.tlsConfiguration())
    }

    // MARK: Loading certificates

    @Test("certificates from DER, from PEM with one or several, and refusals")
    func loading() throws {
        #expect(try SecurityPolicy.certificates(from: certificates.leaf) == [certificates.leaf])
        #expect(try SecurityPolicy.certificates(from: TestCertificates.pem(certificates.leaf)) == [certificates.leaf])
        let bundle = TestCertificates.pem(certificates.leaf, certificates.intermediate, certificates.root)
        #expect(try SecurityPolicy.certificates(from: bundle) == [certificates.leaf, certificates.intermediate, certificates.root])
        for bad in [Data(), Data("hello".utf8), Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)] {
            let error = #expect(throws: SluiceError.self) { try SecurityPolicy.certificates(from: bad) }
            #expect(error?.code == .invalidCertificate)
        }
    }

    @Test("certificates(inDirectory:) reads .cer, .crt, .der and .pem files in name order and skips the rest")
    func directory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pins-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try certificates.leaf.write(to: directory.appendingPathComponent("a-leaf.cer"))
        try TestCertificates.pem(certificates.intermediate, certificates.root).write(to: directory.appendingPathComponent("b-cas.PEM"))
        try certificates.root.write(to: directory.appendingPathComponent("c-root.der"))
        try Data("notes".utf8).write(to: directory.appendingPathComponent("README.txt"))
        // A directory whose name looks like a certificate's is not read.
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub.crt"), withIntermediateDirectories: true)
        #expect(try SecurityPolicy.certificates(inDirectory: directory) == [
            certificates.leaf, certificates.intermediate, certificates.root, certificates.root,
        ])

        try Data("broken".utf8).write(to: directory.appendingPathComponent("d-broken.crt"))
        let broken = #expect(throws: SluiceError.self) { try SecurityPolicy.certificates(inDirectory: directory) }
        #expect(broken?.code == .invalidCertificate)

        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: SluiceError.self) { try SecurityPolicy.certificates(inDirectory: empty) }
        let missing = #expect(throws: SluiceError.self) {
            try SecurityPolicy.certificates(inDirectory: directory.appendingPathComponent("missing"))
        }
        #expect(missing?.code == .invalidCertificate)
    }

    @Test("a client identity from files; unreadable files and a certificate file without PEM are refused")
    func identityFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-identity-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("client.pem").path
        let key = directory.appendingPathComponent("client.key").path
        try TestCertificates.pem(certificates.leaf).write(to: URL(fileURLWithPath: certificate))
        try Data(certificates.leafKey.pemRepresentation.utf8).write(to: URL(fileURLWithPath: key))
        let identity = try TLSConfiguration.ClientIdentity(certificateFile: certificate, privateKeyFile: key, passphrase: "p")
        #expect(identity.certificatePEM == TestCertificates.pem(certificates.leaf) && identity.passphrase == "p")
        for (certificateFile, keyFile) in [(certificate, key + ".missing"), (certificate + ".missing", key), (key, key)] {
            let error = #expect(throws: SluiceError.self) {
                try TLSConfiguration.ClientIdentity(certificateFile: certificateFile, privateKeyFile: keyFile)
            }
            #expect(error?.code == .invalidClientIdentity)
        }
    }
}
