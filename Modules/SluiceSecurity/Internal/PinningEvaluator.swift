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
        let path = chain.isVerified ? chain.certificates : Self.cachedSignedPath(chain.certificates)
        switch pins {
        case .certificates(let pinned):
            if path.contains(where: pinned.contains) { return }
            throw SluiceError(
                .pinnedCertificateMissing,
                "the chain of \(chain.host) (\(path.count) certificates) contains none of the \(pinned.count) pinned certificates")
        case .publicKeys(let pinned):
            if path.contains(where: { Self.cachedPin(of: $0).map(pinned.contains) ?? false }) { return }
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

    // A server sends the same certificates with every request: their pins and signed paths are kept
    // (bounded, cleared when full). Both depend on the bytes alone, not on the time.
    private static let pinCache = Locked<[Data: String]>([:])
    private static let pathCache = Locked<[[Data]: [Data]]>([:])
    private static let cacheLimit = 256

    private static func cachedPin(of der: Data) -> String? {
        cached(der, in: pinCache) { try? CertificateDecoder.publicKeyPin(of: der) }
    }

    private static func cachedSignedPath(_ served: [Data]) -> [Data] {
        cached(served, in: pathCache) { signedPath(served) } ?? []
    }

    private static func cached<Key: Hashable & Sendable, Value: Sendable>(
        _ key: Key, in cache: Locked<[Key: Value]>, _ make: () -> Value?
    ) -> Value? {
        if let known = cache.withLock({ $0[key] }) { return known }
        guard let value = make() else { return nil }
        cache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll() }
            cache[key] = value
        }
        return value
    }
}
