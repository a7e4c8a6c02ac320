extension SluiceError.Code {
    /// Connection settings that cannot be used: a Unix socket path too long or empty, an override whose
    /// host or port is malformed, an empty local interface, a timeout that is not positive.
    public static let invalidConnectionSettings: Self = "connection.invalidSettings"
}

extension SluiceError.Code {
    /// A proxy that cannot be used: a scheme other than `http`, `https`, `socks4`, `socks4a`, `socks5`
    /// or `socks5h`, no host, or a proxy named by the environment that is not a URL.
    public static let invalidProxy: Self = "connection.invalidProxy"
}
