import Dispatch
import Foundation
import Sluice

/// The outcomes of AFNetworking's security-policy tests (`AFSecurityPolicyTests`), reproduced with
/// ``SecurityPolicy`` against real TLS servers of `Tools/testenv`, plus Sluice's additions (custom CAs,
/// expiry, mutual TLS). The `security.policy` conformance suite and the test suite run the same rows.
///
/// The test CA stands in for the system trust store: policies that are meant to trust the served
/// chain add it with ``SecurityPolicy/trustedCertificates``. AFNetworking's httpbin.org chain becomes
/// the `chain` server (test root → intermediate → leaf), its "ADN" chain the `https` server (a leaf
/// from the same root, no intermediate), and its self-signed certificates the `selfSigned` server.
public enum SecurityPolicyTable {
    /// What a request under a policy came to.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The server answered with this status.
        case status(Int)
        /// The policy, or the TLS layer under it, refused with this code.
        case refused(SluiceError.Code)

        /// The server answered `200`.
        public static let accepted = Outcome.status(200)

        /// `status 200` or `refused security.hostMismatch`.
        public var description: String {
            switch self {
            case .status(let status): "status \(status)"
            case .refused(let code): "refused \(code)"
            }
        }
    }

    /// The certificates of the test environment, DER.
    public struct Certificates: Sendable {
        /// The test root CA.
        public let root: Data
        /// The `chain` server's leaf (RSA key) and its intermediate CA.
        public let chainLeaf: Data, chainIntermediate: Data
        /// The `https` server's leaf, issued by the root directly.
        public let serverLeaf: Data
        /// The `selfSigned` server's certificate.
        public let selfSigned: Data
        /// The `wrongHost` server's leaf.
        public let wrongHost: Data
        /// The client certificate and key for mutual TLS.
        public let clientIdentity: TLSConfiguration.ClientIdentity

        /// Reads the certificate files the environment names.
        ///
        /// - Throws: ``ConformanceError`` when a file is missing or unreadable.
        public init(servers: ServerEnvironment) throws {
            func certificates(_ path: String?, _ key: String) throws -> [Data] {
                guard let path else { throw ConformanceError("\(key) is not set; start the servers with \(ServerEnvironment.startCommand)") }
                do {
                    return try SecurityPolicy.certificates(atPath: path)
                } catch {
                    throw ConformanceError("\(key): \(error)")
                }
            }
            root = try certificates(servers.caFile, "SLUICE_CA_FILE")[0]
            let chain = try certificates(servers.certificateFile(for: .chain), "SLUICE_CHAIN_CERT")
            guard chain.count == 2 else { throw ConformanceError("SLUICE_CHAIN_CERT should hold a leaf and an intermediate") }
            (chainLeaf, chainIntermediate) = (chain[0], chain[1])
            serverLeaf = try certificates(servers.certificateFile(for: .https), "SLUICE_SERVER_CERT")[0]
            selfSigned = try certificates(servers.certificateFile(for: .selfSigned), "SLUICE_SELFSIGNED_CERT")[0]
            wrongHost = try certificates(servers.certificateFile(for: .wrongHost), "SLUICE_WRONGHOST_CERT")[0]
            guard let certificateFile = servers.clientCertificate, let keyFile = servers.clientKey else {
                throw ConformanceError("SLUICE_CLIENT_CERT or SLUICE_CLIENT_KEY is not set")
            }
            do {
                clientIdentity = try TLSConfiguration.ClientIdentity(certificateFile: certificateFile, privateKeyFile: keyFile)
            } catch {
                throw ConformanceError("the client identity: \(error)")
            }
        }
    }

    /// One case: a policy, the server it is tried against, and the outcome AFNetworking's semantics give.
    public struct Row: Sendable, CustomStringConvertible {
        /// What the case checks.
        public let id: String
        /// The AFNetworking test whose outcome it reproduces, or what it adds.
        public let mirrors: String
        /// The server requested.
        public let server: ServerEnvironment.Server
        /// The outcome expected.
        public let expected: Outcome
        /// Builds the policy from the environment's certificates.
        public let policy: @Sendable (Certificates) -> SecurityPolicy

        /// The ``id``.
        public var description: String { id }
    }

    /// A run of one row: what happened, and the probe query the request carried (`nil` when no request
    /// was attempted because the policy itself was refused).
    public struct Run: Sendable {
        /// What happened.
        public let outcome: Outcome
        /// The unique `probe` query value of the request, to look for in nginx's access log.
        public let probe: String?
        /// The access log's size before the request: its line, if any, comes after this offset.
        public var logOffset: UInt64 = 0
    }

    /// Runs `row`: applies its policy to a new session (with the server's URL as base URL) and GETs
    /// `/status?probe=<UUID>`.
    public static func run(_ row: Row, servers: ServerEnvironment, certificates: Certificates) async throws -> Run {
        guard let base = servers.url(for: row.server) else {
            throw ConformanceError("\(row.server.rawValue) is not set; start the servers with \(ServerEnvironment.startCommand)")
        }
        var configuration = SessionConfiguration()
        configuration.completionQueue = DispatchQueue(label: "sluice.security-policy-table")
        do throws(SluiceError) {
            try configuration.apply(row.policy(certificates), baseURL: base)
        } catch {
            return Run(outcome: .refused(error.code), probe: nil)
        }
        let session = SessionManager(configuration: configuration)
        defer { session.invalidate(cancelingTasks: true) }
        let probe = UUID().uuidString
        let logOffset = (try? accessLogSize(servers: servers)) ?? 0
        do throws(SluiceError) {
            let response = try await session.data(for: HTTPRequest(url: URL(string: "\(base.absoluteString)/status?probe=\(probe)")!))
            return Run(outcome: .status(response.response.statusCode), probe: probe, logOffset: logOffset)
        } catch {
            return Run(outcome: .refused(error.code), probe: probe, logOffset: logOffset)
        }
    }

    /// The size of nginx's access log now: lines of requests sent later come after this offset.
    ///
    /// - Throws: ``ConformanceError`` when the environment names no access log or it cannot be read.
    public static func accessLogSize(servers: ServerEnvironment) throws -> UInt64 {
        let path = try accessLogPath(servers)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else {
            throw ConformanceError("cannot read \(path)")
        }
        return size.uint64Value
    }

    /// Whether nginx's access log records a request whose URI holds `probe`, in the lines written
    /// after `offset` (default 0: the whole log). Only that part is read, however long the log.
    ///
    /// - Throws: ``ConformanceError`` when the environment names no access log or it cannot be read.
    public static func accessLogRecords(_ probe: String, servers: ServerEnvironment, after offset: UInt64 = 0) throws -> Bool {
        let path = try accessLogPath(servers)
        guard let file = FileHandle(forReadingAtPath: path) else { throw ConformanceError("cannot read \(path)") }
        defer { try? file.close() }
        do {
            try file.seek(toOffset: offset)
            return (try file.readToEnd() ?? Data()).range(of: Data(probe.utf8)) != nil
        } catch {
            throw ConformanceError("cannot read \(path): \(error)")
        }
    }

    private static func accessLogPath(_ servers: ServerEnvironment) throws -> String {
        guard let path = servers.nginxAccessLog else { throw ConformanceError("SLUICE_NGINX_ACCESS_LOG is not set") }
        return path
    }

    // MARK: The rows

    private static func row(
        _ id: String, _ mirrors: String, _ server: ServerEnvironment.Server, _ expected: Outcome,
        _ policy: @escaping @Sendable (Certificates) -> SecurityPolicy
    ) -> Row {
        Row(id: id, mirrors: mirrors, server: server, expected: expected, policy: policy)
    }

    /// A policy that trusts the test root (the stand-in for the system store).
    private static func trusting(
        _ certificates: Certificates, _ mode: SSLPinningMode = .none, pins: [Data] = [], allowInvalid: Bool = false,
        validatesDomainName: Bool = true
    ) -> SecurityPolicy {
        var policy = SecurityPolicy(
            pinningMode: mode, pinnedCertificates: pins, allowInvalidCertificates: allowInvalid,
            validatesDomainName: validatesDomainName)
        policy.trustedCertificates = [certificates.root]
        return policy
    }

    /// Every case, in order.
    public static let rows: [Row] = defaultRows + pinningRows(.publicKey) + pinningRows(.certificate) + domainRows
        + selfSignedRows + additionRows

    private static let defaultRows: [Row] = [
        row("default policy trusts a valid chain", "testDefaultPolicyDoesAllowHTTPBinOrgCertificateForValidDomainName",
            .chain, .accepted) { trusting($0) },
        row("default policy without the root refuses the chain", "the system store lacks the test root",
            .chain, .refused(.untrustedChain)) { _ in .defaultPolicy },
        row("default policy refuses a self-signed certificate", "testDefaultPolicyDoesNotAllowInvalidCertificate",
            .selfSigned, .refused(.untrustedChain)) { trusting($0) },
        row("default policy refuses a certificate for another host", "testDefaultPolicyDoesNotAllowCertificateWithInvalidDomainName",
            .wrongHost, .refused(.hostMismatch)) { trusting($0) },
        row("default policy refuses an expired certificate", "beyond AFNetworking: expiry has its own code",
            .expired, .refused(.certificateExpired)) { trusting($0) },
        row("default policy refuses a certificate not valid yet", "beyond AFNetworking: so has a future start",
            .notYetValid, .refused(.certificateNotYetValid)) { trusting($0) },
    ]

    private static func pinningRows(_ mode: SSLPinningMode) -> [Row] {
        let name = mode == .publicKey ? "PublicKey" : "Certificate"
        let mismatch: SluiceError.Code = mode == .publicKey ? .pinnedKeyMismatch : .pinnedCertificateMissing
        return [
            row("\(mode): pinned leaf", "testPolicyWith\(name)PinningAllowsHTTPBinOrgServerTrustWithHTTPBinOrgLeafCertificatePinned",
                .chain, .accepted) { trusting($0, mode, pins: [$0.chainLeaf]) },
            row("\(mode): pinned intermediate", "testPolicyWith\(name)PinningAllowsHTTPBinOrgServerTrustWithHTTPBinOrgIntermediateCertificatePinned",
                .chain, .accepted) { trusting($0, mode, pins: [$0.chainIntermediate]) },
            row("\(mode): pinned root", "testPolicyWith\(name)PinningAllowsHTTPBinOrgServerTrustWithHTTPBinOrgRootCertificatePinned",
                .chain, .accepted) { trusting($0, mode, pins: [$0.root]) },
            row("\(mode): whole chain pinned", "testPolicyWith\(name)PinningAllowsHTTPBinOrgServerTrustWithEntireCertificateChainPinned",
                .chain, .accepted) { trusting($0, mode, pins: [$0.chainLeaf, $0.chainIntermediate, $0.root]) },
            row("\(mode): pinned leaf among other pins", "testPolicyWith\(name)PinningAllowsHTTPBirnOrgServerTrustWithHTTPbinOrgPinnedCertificateAndAdditionalPinnedCertificates",
                .chain, .accepted) { trusting($0, mode, pins: [$0.chainLeaf, $0.selfSigned]) },
            row("\(mode): no pinned certificate", "testPolicyWith\(name)PinningAndNoPinnedCertificatesDoesNotAllowHTTPBinOrgServerTrust",
                .chain, .refused(.invalidSecurityPolicy)) { trusting($0, mode) },
            row("\(mode): a chain without the pinned leaf", "testPolicyWith\(name)PinningDoesNotAllowADNServerTrustWithHTTPBinOrgPinnedCertificate",
                .https, .refused(mismatch)) { trusting($0, mode, pins: [$0.chainLeaf]) },
            row("\(mode): a chain with none of several pins", "testPolicyWith\(name)PinningDoesNotAllowADNServerTrustWithMultipleInvalidPinnedCertificates",
                .https, .refused(mismatch)) { trusting($0, mode, pins: [$0.chainLeaf, $0.chainIntermediate, $0.selfSigned]) },
            row("\(mode): pinned leaf for another host", "testPolicyWith\(name)PinningDoesNotAllowHTTPBinOrgServerTrustWithHTTPBinOrgLeafCertificatePinnedAndInvalidDomainName",
                .wrongHost, .refused(.hostMismatch)) { trusting($0, mode, pins: [$0.wrongHost]) },
            row("\(mode): pinning needs an https base URL", "AFHTTPSessionManager's setSecurityPolicy: exception",
                .http, .refused(.invalidSecurityPolicy)) { trusting($0, mode, pins: [$0.serverLeaf]) },
        ]
    }

    private static let domainRows: [Row] = [
        row("domain validation off accepts another host's certificate", "testThatPolicyWithoutDomainNameValidationAllowsServerTrustWithInvalidDomainName",
            .wrongHost, .accepted) { trusting($0, validatesDomainName: false) },
        row("certificate pinning with domain validation off accepts another host's pinned certificate",
            "testCertificatePinningIsEnforcedForHTTPBinOrgPinnedCertificateWithoutDomainNameValidation",
            .wrongHost, .accepted) { trusting($0, .certificate, pins: [$0.wrongHost], validatesDomainName: false) },
        row("pinned self-signed certificate for another host, invalid allowed, domain validated",
            "testThatPolicyWithDomainNameValidationAndSelfSignedNoDomainCertificateDoesNotAllowServerTrust",
            .wrongHost, .refused(.hostMismatch)) { trusting($0, .certificate, pins: [$0.wrongHost], allowInvalid: true) },
    ]

    private static let selfSignedRows: [Row] = [
        row("invalid allowed, no pinning, no domain validation: self-signed accepted",
            "testThatPolicyWithInvalidCertificatesAllowedAndNoSSLPinningAndDomainNameValidationDisabledDoesAllowSelfSignedServerTrustForValidDomainName",
            .selfSigned, .accepted) { _ in SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false) },
        row("invalid allowed without pinning but with domain validation is refused",
            "testThatPolicyWithInvalidCertificatesAllowedAndNoValidPinnedCertificatesAndNoPinningModeAndDomainValidationDoesNotAllowSelfSignedServerTrustForValidDomainName",
            .selfSigned, .refused(.invalidSecurityPolicy)) { _ in SecurityPolicy(allowInvalidCertificates: true) },
        row("invalid allowed with pins but no pinning mode is refused",
            "testThatPolicyWithInvalidCertificatesAllowedAndValidPinnedCertificatesAndNoPinningModeDoesNotAllowSelfSignedServerTrustForValidDomainName",
            .selfSigned, .refused(.invalidSecurityPolicy)) { SecurityPolicy(pinnedCertificates: [$0.selfSigned], allowInvalidCertificates: true) },
        row("invalid allowed, public-key pinning without pins is refused",
            "testThatPolicyWithInvalidCertificatesAllowedAndNoPinnedCertificatesAndPublicKeyPinningModeDoesNotAllowSelfSignedServerTrustForValidDomainName",
            .selfSigned, .refused(.invalidSecurityPolicy)) { _ in SecurityPolicy(pinningMode: .publicKey, allowInvalidCertificates: true) },
        row("publicKey: pinned self-signed certificate, invalid allowed",
            "testThatPolicyWithInvalidCertificatesAllowedAndValidPinnedCertificatesDoesAllowSelfSignedServerTrustForValidDomainName",
            .selfSigned, .accepted) { SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [$0.selfSigned], allowInvalidCertificates: true) },
        row("certificate: pinned self-signed certificate, invalid allowed",
            "testThatPolicyWithDomainNameValidationAndSelfSignedDNSCertificateAllowsServerTrust (certificate mode)",
            .selfSigned, .accepted) { SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [$0.selfSigned], allowInvalidCertificates: true) },
        row("certificate: pinned self-signed certificate without invalid allowed",
            "testThatPolicyWithInvalidCertificatesDisabledDoesNotAllowSelfSignedServerTrust (pinned)",
            .selfSigned, .refused(.untrustedChain)) { trusting($0, .certificate, pins: [$0.selfSigned]) },
        row("certificate: another certificate pinned, self-signed served, invalid allowed",
            "self-signed passes only when the pin matches",
            .selfSigned, .refused(.pinnedCertificateMissing)) { SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [$0.serverLeaf], allowInvalidCertificates: true) },
        row("publicKey: another key pinned, self-signed served, invalid allowed",
            "self-signed passes only when the pin matches",
            .selfSigned, .refused(.pinnedKeyMismatch)) { SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [$0.serverLeaf], allowInvalidCertificates: true) },
        row("certificate: pinned intermediate as the only anchor, invalid allowed",
            "partial-chain verification anchors the chain at the pin",
            .chain, .accepted) { SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [$0.chainIntermediate], allowInvalidCertificates: true) },
        row("certificate: pinned root as the only anchor, invalid allowed", "pinning the root of a chain the store does not hold",
            .chain, .accepted) { SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [$0.root], allowInvalidCertificates: true) },
        row("invalid allowed, no domain validation: an expired certificate accepted", "allowInvalidCertificates covers expiry",
            .expired, .accepted) { _ in SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false) },
    ]

    private static let additionRows: [Row] = [
        row("the root in memory replacing the system store", "beyond AFNetworking: custom CA bundle", .chain, .accepted) {
            var policy = SecurityPolicy()
            policy.trustedCertificates = [$0.root]
            policy.replacesSystemTrustStore = true
            return policy
        },
        row("a replacing store without the root refuses the chain", "beyond AFNetworking: the system store is really gone",
            .chain, .refused(.untrustedChain)) {
            var policy = SecurityPolicy()
            policy.trustedCertificates = [$0.selfSigned]
            policy.replacesSystemTrustStore = true
            return policy
        },
        row("TLS 1.3 as the minimum version", "beyond AFNetworking: minimum TLS version", .chain, .accepted) {
            var policy = trusting($0)
            policy.minimumTLSVersion = .tls1_3
            return policy
        },
        row("strict mutual TLS with the client identity", "beyond AFNetworking: client certificates", .mutualTLSStrict, .accepted) {
            var policy = trusting($0)
            policy.clientIdentity = $0.clientIdentity
            return policy
        },
        row("strict mutual TLS without a client identity", "beyond AFNetworking: the handshake refuses",
            .mutualTLSStrict, .refused(.clientCertificateRejected)) { trusting($0) },
        row("lenient mutual TLS with the client identity", "beyond AFNetworking", .mutualTLS, .accepted) {
            var policy = trusting($0)
            policy.clientIdentity = $0.clientIdentity
            return policy
        },
        row("lenient mutual TLS without a client identity answers 400", "nginx refuses in HTTP, not in the handshake",
            .mutualTLS, .status(400)) { trusting($0) },
    ]
}
