import Foundation
import SluiceCore
import X509

/// The ``ServerTrustEvaluator`` of a pinning ``SecurityPolicy``: some certificate of the server's chain
/// must be pinned (certificate mode) or carry a pinned public key (public-key mode), as in
/// AFNetworking's `AFSecurityPolicy`.
///
/// Only certificates on a checked path count, so a server cannot pass by appending a pinned
/// certificate it does not chain to: a chain the TLS library verified is such a path; otherwise the
/// path is followed from the leaf through the served certificates whose keys verify the signature of
/// the one below.
struct PinningEvaluator: ServerTrustEvaluator {
    enum Pins: Hashable {
        /// DER certificates.
        case certificates(Set<Data>)
        /// `sha256//` SubjectPublicKeyInfo hashes.
        case publicKeys(Set<String>)
    }

    let pins: Pins

    func evaluate(_ chain: ServerCertificateChain) throws(SluiceError) {
        let path = chain.isVerified ? chain.certificates : cachedSignedPath(chain.certificates)
        switch pins {
        case .certificates(let pinned):
            if path.contains(where: pinned.contains) { return }
            throw SluiceError(
                .pinnedCertificateMissing,
                "the chain of \(chain.host) (\(path.count) certificates) contains none of the \(pinned.count) pinned certificates")
        case .publicKeys(let pinned):
            if path.contains(where: { cachedPin(of: $0).map(pinned.contains) ?? false }) { return }
            throw SluiceError(
                .pinnedKeyMismatch,
                "no certificate in the chain of \(chain.host) (\(path.count) certificates) has one of the \(pinned.count) pinned public keys")
        }
    }

    /// The leaf, then each served certificate that names the previous one's issuer and whose key
    /// verifies its signature. The leaf needs no proof: the server showed it holds the leaf's key.
    static func signedPath(_ served: [Data]) -> [Data] {
        guard let first = served.first, let leaf = try? Certificate(derEncoded: Array(first)) else { return [] }
        var path = [(der: first, certificate: leaf)]
        var remaining = served.dropFirst().compactMap { der in (try? Certificate(derEncoded: Array(der))).map { (der, $0) } }
        while let current = path.last?.certificate, current.issuer != current.subject,
            let index = remaining.firstIndex(where: {
                $0.1.subject == current.issuer && $0.1.publicKey.isValidSignature(current.signature, for: current)
            })
        {
            path.append(remaining.remove(at: index))
        }
        return path.map(\.der)
    }

    // MARK: Caches

    /// The pins and signed paths this evaluator worked out: a server sends the same certificates with
    /// every request. Bounded (cleared when full); both depend on the bytes alone, not on the time. Kept
    /// with the evaluator, so they go with the session that holds it.
    private let cache = PinningCache()

    /// Two evaluators are equal when they hold the same pins; what they remember does not count.
    static func == (lhs: PinningEvaluator, rhs: PinningEvaluator) -> Bool { lhs.pins == rhs.pins }

    func hash(into hasher: inout Hasher) { hasher.combine(pins) }

    private func cachedPin(of der: Data) -> String? {
        cache.pins.value(for: der) { try? CertificateDecoder.publicKeyPin(of: der) }
    }

    private func cachedSignedPath(_ served: [Data]) -> [Data] {
        cache.paths.value(for: served) { Self.signedPath(served) } ?? []
    }
}
