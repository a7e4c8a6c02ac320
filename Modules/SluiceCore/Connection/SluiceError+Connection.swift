extension SluiceError.Code {
    /// Connection settings that cannot be used: a Unix socket path too long or empty, an override whose
    /// host or port is malformed, an empty local interface, a timeout that is not positive.
    public static let invalidConnectionSettings: Self = "connection.invalidSettings"
}
