/// Bounds on what a content decoder may produce, the guard against decompression bombs.
///
/// Two presets cover the two ways a body is kept:
/// - ``inMemory`` (the ``default``) for a body collected whole in memory: at most 128 MiB of output,
///   and at most 100 decoded bytes for each encoded byte once the output passes 1 MiB. About 1 MB of
///   gzip on the wire can no longer become a gigabyte in memory; it stops at about 100 MB.
/// - ``streaming`` for a body written to a file or read as a stream, never held whole: no limit, so a
///   large compressed download is not cut short.
public struct ContentCodingLimits: Sendable, Hashable {
    /// The most decoded bytes one body may produce. Default 128 MiB.
    public var maximumOutputBytes: Int64
    /// The largest allowed ratio of decoded to encoded bytes, or `nil` for no ratio limit. Checked
    /// only once the output passes ``ratioThreshold``, so small, highly compressible bodies pass.
    /// Default 100.
    public var maximumRatio: Double?
    /// The output size from which ``maximumRatio`` applies. Default 1 MiB.
    public var ratioThreshold: Int64

    /// Creates limits; the defaults are ``inMemory``'s.
    ///
    /// - Parameters:
    ///   - maximumOutputBytes: Default 128 MiB.
    ///   - maximumRatio: Default 100 (decoded bytes per encoded byte); `nil` for no ratio limit.
    ///   - ratioThreshold: Default 1 MiB.
    public init(
        maximumOutputBytes: Int64 = 128 << 20, maximumRatio: Double? = 100, ratioThreshold: Int64 = 1 << 20
    ) {
        self.maximumOutputBytes = maximumOutputBytes
        self.maximumRatio = maximumRatio
        self.ratioThreshold = ratioThreshold
    }

    /// For a body collected in memory: 128 MiB of output, a ratio of 100:1 from 1 MiB on.
    public static let inMemory = ContentCodingLimits()

    /// For a body written to a file or read as a stream: no output limit and no ratio limit.
    public static let streaming = ContentCodingLimits(maximumOutputBytes: .max, maximumRatio: nil)

    /// The defaults, ``inMemory``.
    public static let `default` = inMemory
}

/// Counts one body's encoded and decoded bytes against its ``ContentCodingLimits``.
///
/// Content decoders call ``record(input:)`` for what they consume and ``permit(output:)`` before they
/// hand out decoded bytes.
public struct ContentCodingBudget: Sendable {
    /// The limits counted against.
    public let limits: ContentCodingLimits
    /// Encoded bytes consumed so far.
    public private(set) var inputBytes: Int64 = 0
    /// Decoded bytes produced so far.
    public private(set) var outputBytes: Int64 = 0

    /// Starts counting against `limits`.
    public init(limits: ContentCodingLimits) { self.limits = limits }

    /// Counts consumed encoded bytes.
    public mutating func record(input count: Int) { inputBytes += Int64(count) }

    /// Counts `count` decoded bytes about to be handed out.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingOutputLimit`` when the output
    ///   would pass the byte limit, or ``SluiceError/Code/contentCodingRatioLimit`` when it would pass
    ///   the ratio limit. The bytes are not counted then.
    public mutating func permit(output count: Int) throws(SluiceError) {
        let total = outputBytes + Int64(count)
        guard total <= limits.maximumOutputBytes else {
            throw SluiceError(
                .contentCodingOutputLimit,
                "decoded body passed the limit of \(limits.maximumOutputBytes) bytes after \(inputBytes) encoded bytes")
        }
        if let ratio = limits.maximumRatio, total > limits.ratioThreshold,
            Double(total) > ratio * Double(max(inputBytes, 1))
        {
            throw SluiceError(
                .contentCodingRatioLimit,
                "decoded body passed the ratio limit of \(ratio):1 (\(total) bytes from \(inputBytes))")
        }
        outputBytes = total
    }
}
