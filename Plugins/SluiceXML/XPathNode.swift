/// A node an XPath expression selected.
public enum XPathNode: Sendable, Hashable {
    /// An element, with its subtree.
    case element(XMLTree.Element)
    /// An attribute.
    case attribute(XMLAttribute)
    /// A text node (CDATA sections are text to XPath).
    case text(String)
    /// A comment.
    case comment(String)
    /// A processing instruction.
    case processingInstruction(target: String, data: String)
    /// A namespace node.
    case namespace(XMLNamespace)
    /// The document itself (`/`), with its root element.
    case document(root: XMLTree.Element)

    /// The element, when this node is one.
    public var element: XMLTree.Element? {
        if case .element(let element) = self { return element }
        return nil
    }

    /// XPath's string value: an element's (or the document's) descendant text, an attribute's value, a
    /// namespace's URI, the content of the other nodes.
    public var stringValue: String {
        switch self {
        case .element(let element), .document(let element): element.text
        case .attribute(let attribute): attribute.value
        case .text(let text), .comment(let text): text
        case .processingInstruction(_, let data): data
        case .namespace(let namespace): namespace.uri
        }
    }
}
