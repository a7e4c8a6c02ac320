/// A namespace declaration (`xmlns:atom="http://www.w3.org/2005/Atom"` or `xmlns="..."`).
public struct XMLNamespace: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The declared prefix, or `nil` for the default namespace.
    public var prefix: String?
    /// The namespace URI (empty when a default namespace declaration undeclares it).
    public var uri: String

    /// Creates a declaration.
    ///
    /// - Parameters:
    ///   - prefix: The prefix; `nil` for the default namespace.
    ///   - uri: The namespace URI.
    public init(prefix: String?, uri: String) {
        self.prefix = prefix
        self.uri = uri
    }

    /// `xmlns:prefix="uri"` or `xmlns="uri"`.
    public var description: String { "xmlns\(prefix.map { ":\($0)" } ?? "")=\(uri.debugDescription)" }
}
