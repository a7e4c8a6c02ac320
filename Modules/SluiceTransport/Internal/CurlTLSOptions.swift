import CCurl
import Foundation
import SluiceCore

/// A ``TLSConfiguration`` as libcurl is given it, worked out once per session (and once per host with
/// settings of its own) rather than for every request: the CA blob, the pins as one string, the
/// version constant. A transfer holds a reference to it, so preparing a request copies no settings.
final class CurlTLSOptions: Sendable {
    let verifiesPeer: Bool
    let verifiesHost: Bool
    /// `CURLOPT_CAINFO_BLOB`: the replacing store and the added certificates; `nil` for libcurl's own.
    let caBundle: Data?
    /// Whether the system's CAs are replaced, so libcurl's default CA directory must be off too.
    let replacesSystemStore: Bool
    /// ``TLSConfiguration/trustedCertificatesArePinned``.
    let anchorsArePinned: Bool
    let allowsPartialChain: Bool
    /// `CURLOPT_PINNEDPUBLICKEY`, or `nil` for no pins.
    let pinnedPublicKeys: String?
    let clientIdentity: TLSConfiguration.ClientIdentity?
    let serverTrustEvaluator: (any ServerTrustEvaluator)?
    /// The longest the evaluator may take, in seconds.
    let serverTrustEvaluationTimeout: TimeInterval
    /// `CURLOPT_SSLVERSION`: the oldest version, and the newest in its upper 16 bits when one is set.
    let versions: Int
    /// `CURLOPT_SSL_CIPHER_LIST`, `CURLOPT_TLS13_CIPHERS`.
    let cipherList: String?
    let tls13CipherSuites: String?
    /// Why these settings cannot make a connection (a maximum version older than the minimum), checked
    /// as each request is configured.
    let problem: String?

    init(_ tls: TLSConfiguration) {
        verifiesPeer = tls.verifiesPeer
        verifiesHost = tls.verifiesHost
        caBundle = SystemTrustStore.caBundle(replacing: tls.trustedCertificatesPEM, adding: tls.additionalTrustedCertificatesPEM)
        replacesSystemStore = tls.trustedCertificatesPEM != nil
        anchorsArePinned = tls.trustedCertificatesArePinned
        allowsPartialChain = tls.allowsPartialChain
        pinnedPublicKeys = tls.pinnedPublicKeys.isEmpty ? nil : tls.pinnedPublicKeys.joined(separator: ";")
        clientIdentity = tls.clientIdentity
        serverTrustEvaluator = tls.serverTrustEvaluator
        serverTrustEvaluationTimeout = tls.serverTrustEvaluationTimeout
        let minimum = Self.curlVersion(tls.minimumVersion)
        let maximum = tls.maximumVersion.map(Self.curlVersion)
        // libcurl's maximum constants are the version constants shifted left by 16 bits.
        versions = minimum | ((maximum ?? 0) << 16)
        cipherList = tls.cipherList
        tls13CipherSuites = tls.tls13CipherSuites
        if let maximum, maximum < minimum {
            problem = "the newest TLS version allowed (\(tls.maximumVersion!.rawValue)) is older than the oldest (\(tls.minimumVersion.rawValue))"
        } else {
            problem = nil
        }
    }

    private static func curlVersion(_ version: TLSConfiguration.Version) -> Int {
        switch version {
        case .tls1_0: Int(CURL_SSLVERSION_TLSv1_0)
        case .tls1_1: Int(CURL_SSLVERSION_TLSv1_1)
        case .tls1_2: Int(CURL_SSLVERSION_TLSv1_2)
        case .tls1_3: Int(CURL_SSLVERSION_TLSv1_3)
        }
    }
}
