/// A namespace declaration that libxml2 lends to an ``XMLBorrowedEventParser`` handler.
///
/// **Valid only during the handler call that received it.**
public struct XMLBorrowedNamespace {
    /// The declared prefix, or `nil` for the default namespace.
    public let prefix: XMLBytes?
    /// The namespace URI (empty when a default namespace declaration undeclares it).
    public let uri: XMLBytes

    /// A copy as an ``XMLNamespace``.
    public var namespace: XMLNamespace { XMLNamespace(prefix: prefix?.string, uri: uri.string) }
}

@available(*, unavailable, message: "borrowed namespaces are valid only during the handler call")
extension XMLBorrowedNamespace: Sendable {}
