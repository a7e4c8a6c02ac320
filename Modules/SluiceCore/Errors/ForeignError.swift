/// An error from outside Sluice (a `Codable` conformance, Foundation), kept as an underlying error.
///
/// Such errors are not declared `Sendable`; this box keeps the original for inspection through
/// ``base`` and treats it as the immutable value errors are in practice.
public struct ForeignError: Error, @unchecked Sendable, CustomStringConvertible {
    /// The original error.
    public let base: any Error

    /// Wraps an error.
    public init(_ base: any Error) { self.base = base }

    /// The original error's description.
    public var description: String { String(describing: base) }
}
