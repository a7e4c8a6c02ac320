/// How ``JSONRequestSerializer`` writes JSON.
public struct JSONWritingOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Object keys in ascending order; otherwise in the order they were written or declared.
    public static let sortedKeys = JSONWritingOptions(rawValue: 1 << 0)
    /// Line breaks and two-space indentation, `"key" : value` as Foundation writes it.
    public static let prettyPrinted = JSONWritingOptions(rawValue: 1 << 1)
    /// `/` left as it is; otherwise written `\/` as Foundation does.
    public static let withoutEscapingSlashes = JSONWritingOptions(rawValue: 1 << 2)
}
