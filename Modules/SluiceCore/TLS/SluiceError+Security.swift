extension SluiceError.Code {
    // These codes live in SluiceCore because two modules raise them: SluiceTransport when libcurl and
    // OpenSSL refuse a server, and SluiceSecurity when a policy or its pins refuse one.

    /// The server's certificate chain does not lead to a trusted certificate (unknown issuer,
    /// self-signed, an unusable CA in the chain, a bad signature).
    public static let untrustedChain: Self = "security.untrustedChain"
    /// The server's certificate does not name the host connected to.
    public static let hostMismatch: Self = "security.hostMismatch"
    /// A certificate in the server's chain has expired.
    public static let certificateExpired: Self = "security.certificateExpired"
    /// A certificate in the server's chain is not valid yet.
    public static let certificateNotYetValid: Self = "security.certificateNotYetValid"
    /// Certificate pinning: the server's chain contains none of the pinned certificates.
    public static let pinnedCertificateMissing: Self = "security.pinnedCertificateMissing"
    /// Public-key pinning: no certificate of the server's chain has a pinned public key. The code keeps
    /// its first spelling, from when only the transport raised it.
    public static let pinnedKeyMismatch: Self = "transport.pinnedKeyMismatch"
    /// The server refused the client certificate, or asked for one and got none (a TLS alert such as
    /// `certificate required`, `bad certificate` or `unknown ca`).
    public static let clientCertificateRejected: Self = "security.clientCertificateRejected"
    /// The client identity could not be used: its certificate or key is not PEM, they do not belong
    /// together, or the passphrase is wrong.
    public static let invalidClientIdentity: Self = "security.invalidClientIdentity"
    /// A security policy contradicts itself or its use (pinning without pins, invalid certificates
    /// allowed with domain validation but without pinning, pinning for a base URL that is not https, a
    /// newest TLS version older than the oldest).
    public static let invalidSecurityPolicy: Self = "security.invalidPolicy"
    /// The server trust evaluator did not answer within ``TLSConfiguration/serverTrustEvaluationTimeout``.
    public static let trustEvaluationTimedOut: Self = "security.trustEvaluationTimedOut"
    /// Certificate bytes or a certificate file could not be read or parsed as DER or PEM.
    public static let invalidCertificate: Self = "security.invalidCertificate"
}
