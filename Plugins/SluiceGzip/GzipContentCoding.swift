import SluiceCore

/// The `gzip` (alias `x-gzip`) and `deflate` content codings on zlib: streaming decoders for response
/// bodies and streaming encoders for request bodies.
///
/// Decoding is bounded by ``ContentCodingLimits``: a decompression bomb stops with
/// ``SluiceError/Code/contentCodingOutputLimit`` once the limit is reached, with memory bounded by the
/// chunk size. Corrupt input is ``SluiceError/Code/contentCodingCorrupt``; input that ends before the
/// stream does is ``SluiceError/Code/contentCodingTruncated``. Concatenated gzip members are decoded
/// one after another. `deflate` accepts both the zlib-wrapped form RFC 9110 means and the raw deflate
/// some servers send.
public struct GzipContentCoding: ContentCoding {
    /// Which coding.
    public enum Format: String, Sendable {
        /// gzip (RFC 1952).
        case gzip
        /// zlib-wrapped deflate (RFC 1950); raw deflate is accepted when decoding.
        case deflate
    }

    /// The coding's format.
    public let format: Format
    /// The compression level for encoding, 0–9. Default 6 (zlib's default).
    public let level: Int32

    /// Creates the coding.
    ///
    /// - Parameters:
    ///   - format: gzip or deflate.
    ///   - level: Compression level for encoding, clamped to 0–9. Default 6.
    public init(_ format: Format, level: Int32 = 6) {
        self.format = format
        self.level = min(max(level, 0), 9)
    }

    /// `gzip` or `deflate`.
    public var name: String { format.rawValue }
    /// `x-gzip` for gzip, none for deflate.
    public var aliases: [String] { format == .gzip ? ["x-gzip"] : [] }
    /// `true`.
    public var canEncode: Bool { true }

    /// A new bounded decoder.
    public func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder {
        ZlibInflater(format: format, limits: limits)
    }

    /// A new encoder.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingUnsupported`` when zlib
    ///   cannot set up the stream (out of memory).
    public func makeEncoder() throws(SluiceError) -> any ContentEncoder {
        try ZlibDeflater(format: format, level: level)
    }
}
