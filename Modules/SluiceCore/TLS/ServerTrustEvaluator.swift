/// Decides whether to trust a server from the certificates it presented, after the TLS handshake and
/// before the request is sent; the transport asks it on every request over TLS, reused connections
/// included.
///
/// `SluiceSecurity`'s `SecurityPolicy` supplies one for certificate and public-key pinning. An evaluator
/// runs on the transport's thread for every request: it should be quick and must not block.
///
/// ```swift
/// struct LeafMustBeKnown: ServerTrustEvaluator {
///     let leaf: Data
///     func evaluate(_ chain: ServerCertificateChain) throws(SluiceError) {
///         guard chain.certificates.first == leaf else {
///             throw SluiceError(.pinnedCertificateMissing, "unknown leaf for \(chain.host)")
///         }
///     }
/// }
/// ```
public protocol ServerTrustEvaluator: Sendable, Hashable {
    /// Accepts `chain` by returning, or refuses it by throwing.
    ///
    /// - Throws: The ``SluiceError`` the task ends with; no request byte is sent. Use the `security.*`
    ///   codes (``SluiceError/Code/pinnedCertificateMissing``, ``SluiceError/Code/pinnedKeyMismatch``,
    ///   ``SluiceError/Code/untrustedChain``) so callers can tell the reason.
    func evaluate(_ chain: ServerCertificateChain) throws(SluiceError)
}
