/// What a security policy pins a server's certificate chain against.
public enum SSLPinningMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// No pinning: the chain is checked against the trust store only. The default.
    case none
    /// The public key of some certificate in the served chain must equal a pinned certificate's key.
    case publicKey
    /// Some certificate in the served chain must equal a pinned certificate.
    case certificate
}
