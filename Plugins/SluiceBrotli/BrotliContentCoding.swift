import SluiceCore

/// The `br` content coding on libbrotli: a streaming decoder for response bodies and a streaming
/// encoder for request bodies.
///
/// Decoding is bounded by ``ContentCodingLimits``, as gzip's is: a decompression bomb stops with
/// ``SluiceError/Code/contentCodingOutputLimit`` (or ``SluiceError/Code/contentCodingRatioLimit``) with
/// memory bounded by the chunk size. Corrupt input is ``SluiceError/Code/contentCodingCorrupt``, input
/// that ends before the stream does is ``SluiceError/Code/contentCodingTruncated``, and bytes after the
/// end of the stream are corrupt input.
public struct BrotliContentCoding: ContentCoding {
    /// The quality for encoding, 0–11. Default 5.
    public let quality: Int32

    /// Creates the coding.
    ///
    /// - Parameter quality: Compression quality for encoding, clamped to 0–11. Default 5.
    public init(quality: Int32 = 5) { self.quality = min(max(quality, 0), 11) }

    /// `br`.
    public var name: String { "br" }
    /// `true`.
    public var canEncode: Bool { true }

    /// A new bounded decoder.
    public func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder { BrotliStreamDecoder(limits: limits) }

    /// A new encoder.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingUnsupported`` when libbrotli
    ///   cannot make its state (out of memory).
    public func makeEncoder() throws(SluiceError) -> any ContentEncoder { try BrotliStreamEncoder(quality: quality) }
}
