import Foundation

/// The certificates a server presented, as a ``ServerTrustEvaluator`` sees them after the TLS
/// handshake and before any request byte is sent.
public struct ServerCertificateChain: Sendable, Hashable {
    /// The certificates, DER, leaf first. When ``isVerified`` they are the chain the TLS library
    /// verified, from the leaf up to the trust anchor it found (a root from the trust store, or a
    /// trusted intermediate or leaf); otherwise they are the certificates the server sent, in its order.
    public var certificates: [Data]
    /// Whether the TLS library verified ``certificates`` against its trust store (signatures, dates and
    /// CA constraints), so that every certificate in them is part of a checked path. `false` when peer
    /// verification is off or failed.
    public var isVerified: Bool
    /// The host name (or address) the connection was made to, without brackets for IPv6.
    public var host: String

    /// Creates a chain.
    ///
    /// - Parameters:
    ///   - certificates: DER certificates, leaf first.
    ///   - isVerified: Whether they form a path the TLS library verified. Default `false`.
    ///   - host: The host connected to.
    public init(certificates: [Data], isVerified: Bool = false, host: String) {
        self.certificates = certificates
        self.isVerified = isVerified
        self.host = host
    }
}
