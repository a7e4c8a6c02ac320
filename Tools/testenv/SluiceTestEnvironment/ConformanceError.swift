/// A failure of the conformance tool itself (not of a case): missing servers, unreadable vectors,
/// an unwritable report directory.
public struct ConformanceError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
