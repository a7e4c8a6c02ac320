extension XMLTree {
    /// A node of a document: an element, text, a CDATA section, a comment or a processing instruction.
    public enum Node: Sendable, Hashable, Codable {
        /// An element and its subtree.
        case element(Element)
        /// Character data, with character and predefined entity references replaced. Adjacent text is
        /// one node.
        case text(String)
        /// The content of a CDATA section (adjacent sections are one node).
        case cdata(String)
        /// A comment's text, without `<!--` and `-->`.
        case comment(String)
        /// A processing instruction (`<?target data?>`).
        case processingInstruction(target: String, data: String)

        /// The element, when this node is one.
        public var element: Element? {
            if case .element(let element) = self { return element }
            return nil
        }

        /// The node's text as XPath's string value: the text of an element's descendants, the content
        /// of text, CDATA and comments, a processing instruction's data.
        public var text: String {
            switch self {
            case .element(let element): element.text
            case .text(let text), .cdata(let text), .comment(let text): text
            case .processingInstruction(_, let data): data
            }
        }
    }
}
