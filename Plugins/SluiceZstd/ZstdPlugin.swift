import CZstd
import SluiceCore

/// The Zstandard plugin: registers the `zstd` content coding (RFC 8878) on libzstd.
///
/// ```swift
/// let registry = SerializerRegistry()
/// try registry.register(ZstdPlugin())
/// registry.acceptEncoding   // "zstd"
/// ```
public struct ZstdPlugin: SerializerPlugin {
    /// `zstd`.
    public let name = "zstd"
    /// The plugin's version.
    public let version = "1.0.0"
    /// The compression level its encoders use. Default 3 (libzstd's default).
    public let level: Int32

    /// Creates the plugin.
    ///
    /// - Parameter level: Compression level for encoding, 1–19. Default 3.
    public init(level: Int32 = 3) { self.level = level }

    /// `zstd`.
    public var contentCodings: [any ContentCoding] { [ZstdContentCoding(level: level)] }

    /// The version of libzstd linked into this process, for example `1.5.4`.
    public static var libraryVersion: String { String(cString: ZSTD_versionString()) }
}
