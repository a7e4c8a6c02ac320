/// The `identity` content coding: bytes pass through unchanged, still counted against the limits.
public struct IdentityCoding: ContentCoding {
    /// Creates the coding.
    public init() {}

    /// `identity`.
    public var name: String { "identity" }

    /// `true`.
    public var canEncode: Bool { true }

    /// A decoder that passes bytes through, enforcing ``ContentCodingLimits/maximumOutputBytes``.
    public func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder { Passthrough(limits: limits) }

    /// An encoder that passes bytes through; never throws.
    public func makeEncoder() throws(SluiceError) -> any ContentEncoder {
        Passthrough(limits: ContentCodingLimits(maximumOutputBytes: .max))
    }

    private final class Passthrough: ContentDecoder, ContentEncoder {
        var budget: ContentCodingBudget

        init(limits: ContentCodingLimits) { budget = ContentCodingBudget(limits: limits) }

        func decode(
            _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
        ) throws(SluiceError) {
            guard !input.isEmpty else { return }
            budget.record(input: input.count)
            try budget.permit(output: input.count)
            try output(input)
        }

        func encode(
            _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
        ) throws(SluiceError) {
            try decode(input, output: output)
        }

        func finish(output: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {}
    }
}
