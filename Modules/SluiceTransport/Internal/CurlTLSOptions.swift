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
    /// `CURLOPT_SSLVERSION`.
    let minimumVersion: Int

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
        switch tls.minimumVersion {
        case .tls1_0: minimumVersion = Int(CURL_SSLVERSION_TLSv1_0)
        case .tls1_1: minimumVersion = Int(CURL_SSLVERSION_TLSv1_1)
        case .tls1_2: minimumVersion = Int(CURL_SSLVERSION_TLSv1_2)
        case .tls1_3: minimumVersion = Int(CURL_SSLVERSION_TLSv1_3)
        }
    }
}
