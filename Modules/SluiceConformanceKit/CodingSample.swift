/// A body encoded in a content coding, with the bytes it decodes to: how ``PluginContract`` checks a
/// coding that cannot encode (a decode-only coding needs at least one).
public struct CodingSample: Sendable {
    /// The coding's name (`br`).
    public var coding: String
    /// The encoded bytes, as they arrive on the wire.
    public var encoded: [UInt8]
    /// What they decode to.
    public var decoded: [UInt8]

    /// Creates a sample of `coding`.
    public init(coding: String, encoded: [UInt8], decoded: [UInt8]) {
        self.coding = coding
        self.encoded = encoded
        self.decoded = decoded
    }
}
