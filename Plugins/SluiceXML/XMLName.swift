/// The name of an element or attribute: its local part, the prefix it was written with, and the
/// namespace URI the prefix (or the default namespace) is bound to.
public struct XMLName: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The local part (`item` in `atom:item`).
    public var localName: String
    /// The prefix as written (`atom`), or `nil` for an unprefixed name. Default `nil`.
    public var prefix: String?
    /// The namespace URI the name belongs to, or `nil` for no namespace. Default `nil`.
    public var namespaceURI: String?

    /// Creates a name.
    ///
    /// - Parameters:
    ///   - localName: The local part.
    ///   - prefix: The prefix. Default `nil`.
    ///   - namespaceURI: The namespace URI. Default `nil`.
    public init(_ localName: String, prefix: String? = nil, namespaceURI: String? = nil) {
        self.localName = localName
        self.prefix = prefix
        self.namespaceURI = namespaceURI
    }

    /// The name as written: `prefix:localName`, or `localName` without a prefix.
    public var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }

    /// Whether the name has this local part and, when `namespaceURI` is given, this namespace.
    /// A `nil` namespace matches any namespace (and none).
    public func matches(_ localName: String, namespace namespaceURI: String? = nil) -> Bool {
        self.localName == localName && (namespaceURI == nil || self.namespaceURI == namespaceURI)
    }

    /// `{namespaceURI}qualifiedName` (James Clark's notation), or the qualified name without a namespace.
    public var description: String { namespaceURI.map { "{\($0)}\(qualifiedName)" } ?? qualifiedName }
}
