import CBrotli
import SluiceCore

/// The brotli plugin: registers the `br` content coding (RFC 7932) on libbrotli.
///
/// ```swift
/// let registry = SerializerRegistry()
/// try registry.register(BrotliPlugin())
/// registry.acceptEncoding   // "br"
/// ```
public struct BrotliPlugin: SerializerPlugin {
    /// `brotli`.
    public let name = "brotli"
    /// The plugin's version.
    public let version = "1.0.0"
    /// The quality its encoders use, 0–11. Default 5.
    public let quality: Int32

    /// Creates the plugin.
    ///
    /// - Parameter quality: Compression quality for encoding, 0–11. Default 5 (fast, and smaller than
    ///   gzip's default).
    public init(quality: Int32 = 5) { self.quality = quality }

    /// `br`.
    public var contentCodings: [any ContentCoding] { [BrotliContentCoding(quality: quality)] }

    /// The version of the libbrotli decoder linked into this process, for example `1.0.9`.
    public static var libraryVersion: String {
        let version = BrotliDecoderVersion()
        return "\(version >> 24).\((version >> 12) & 0xFFF).\(version & 0xFFF)"
    }
}
