import SluiceCore

/// The `zstd` content coding on libzstd: a streaming decoder for response bodies and a streaming encoder
/// for request bodies.
///
/// Decoding is bounded by ``ContentCodingLimits``, as gzip's is, and the decoder refuses frames whose
/// window is larger than 8 MiB (RFC 8878's limit for HTTP, §3.1.1.1.2: a server may not make a client
/// hold more), so a hostile frame cannot make it allocate more. Concatenated frames are decoded one after
/// another. Corrupt input is ``SluiceError/Code/contentCodingCorrupt``; input that ends inside a frame
/// is ``SluiceError/Code/contentCodingTruncated``.
public struct ZstdContentCoding: ContentCoding {
    /// The compression level for encoding. Default 3.
    public let level: Int32

    /// Creates the coding.
    ///
    /// - Parameter level: Compression level for encoding, clamped to 1–19. Default 3.
    public init(level: Int32 = 3) { self.level = min(max(level, 1), 19) }

    /// `zstd`.
    public var name: String { "zstd" }
    /// `true`.
    public var canEncode: Bool { true }

    /// A new bounded decoder.
    public func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder { ZstdStreamDecoder(limits: limits) }

    /// A new encoder.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingUnsupported`` when libzstd
    ///   cannot make its context (out of memory).
    public func makeEncoder() throws(SluiceError) -> any ContentEncoder { try ZstdStreamEncoder(level: level) }
}
