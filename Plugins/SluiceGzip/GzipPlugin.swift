import SluiceCore

/// The gzip plugin: registers the `gzip` (and `x-gzip`) and `deflate` content codings.
///
/// ```swift
/// let registry = SerializerRegistry()
/// try registry.register(GzipPlugin())
/// registry.acceptEncoding   // "gzip, deflate"
/// ```
public struct GzipPlugin: SerializerPlugin {
    /// `gzip`.
    public let name = "gzip"
    /// The plugin's version.
    public let version = "1.0.0"
    /// The compression level its encoders use. Default 6.
    public let level: Int32

    /// Creates the plugin.
    ///
    /// - Parameter level: Compression level for encoding, 0–9. Default 6.
    public init(level: Int32 = 6) { self.level = level }

    /// gzip and deflate.
    public var contentCodings: [any ContentCoding] {
        [GzipContentCoding(.gzip, level: level), GzipContentCoding(.deflate, level: level)]
    }
}
