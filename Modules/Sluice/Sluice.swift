// swift-log: `HTTPSessionManager` takes and exposes a `Logger`, so `import Sluice` brings it.
@_exported import Logging
@_exported import SluiceBrotli
@_exported import SluiceCore
@_exported import SluiceGzip
@_exported import SluiceMultipart
@_exported import SluicePropertyList
@_exported import SluiceReachability
@_exported import SluiceRequestSerialization
@_exported import SluiceResponseSerialization
@_exported import SluiceSecurity
@_exported import SluiceTransport
@_exported import SluiceXML
@_exported import SluiceZstd

/// Facts about this build of Sluice.
public enum SluiceInfo {
    /// Sluice's version, `MAJOR.MINOR.PATCH`.
    public static let version = "0.1.0"
}
