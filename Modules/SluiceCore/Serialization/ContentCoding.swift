/// A content coding (`Content-Encoding`), such as gzip: a factory of streaming decoders and encoders.
///
/// The transport asks the session's ``SerializerRegistry`` for the codings it holds to build
/// `Accept-Encoding`, and decodes each response body while it arrives with the coding its
/// `Content-Encoding` names.
public protocol ContentCoding: Sendable {
    /// The coding's registered name, lowercase (`gzip`).
    var name: String { get }

    /// Other names that mean the same coding (`x-gzip`). Default none.
    var aliases: [String] { get }

    /// Whether ``makeEncoder()`` is supported. Default `false`.
    var canEncode: Bool { get }

    /// A new decoder for one body, bounded by `limits`.
    func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder

    /// A new encoder for one request body.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingUnsupported`` by default.
    func makeEncoder() throws(SluiceError) -> any ContentEncoder
}

extension ContentCoding {
    /// No aliases.
    public var aliases: [String] { [] }

    /// `false`.
    public var canEncode: Bool { false }

    /// Throws ``SluiceError/Code/contentCodingUnsupported``.
    public func makeEncoder() throws(SluiceError) -> any ContentEncoder {
        throw SluiceError(.contentCodingUnsupported, "the \(name) coding does not encode")
    }

    /// Whether `name` is this coding's name or one of its aliases, ignoring case.
    public func answers(to name: String) -> Bool {
        let name = name.lowercased()
        return self.name.lowercased() == name || aliases.contains { $0.lowercased() == name }
    }
}

/// Decodes one body incrementally. Owned by one transfer and used from one thread at a time.
public protocol ContentDecoder: AnyObject {
    /// Decodes the next encoded bytes, handing decoded bytes to `output` as they are produced (possibly
    /// several times, possibly not at all).
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingCorrupt`` for input that is
    ///   not valid in this coding, ``SluiceError/Code/contentCodingOutputLimit`` or
    ///   ``SluiceError/Code/contentCodingRatioLimit`` when the limits are passed, or what `output` throws.
    func decode(
        _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError)

    /// Ends the input, handing any remaining decoded bytes to `output`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingTruncated`` when the input
    ///   ended before the encoded stream did, or what `output` throws.
    func finish(output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError)
}

/// Encodes one body incrementally. Owned by one transfer and used from one thread at a time.
public protocol ContentEncoder: AnyObject {
    /// Encodes the next bytes, handing encoded bytes to `output` as they are produced.
    ///
    /// - Throws: ``SluiceError`` from the coding's library, or what `output` throws.
    func encode(
        _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError)

    /// Ends the input and hands the encoded stream's end to `output`.
    ///
    /// - Throws: ``SluiceError`` from the coding's library, or what `output` throws.
    func finish(output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError)
}
