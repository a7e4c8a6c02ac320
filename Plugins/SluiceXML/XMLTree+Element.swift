extension XMLTree {
    /// An element: its name, attributes, the namespaces it declares and its children, as values.
    ///
    /// ```swift
    /// let feed = try XMLTree(parsing: body).root
    /// for entry in feed.elements(named: "entry") {
    ///     print(entry.firstElement(named: "title")?.text ?? "", entry.attribute("id") ?? "")
    /// }
    /// ```
    public struct Element: Sendable, Hashable, Codable {
        /// The element's name.
        public var name: XMLName
        /// Its attributes in document order (namespace declarations are in ``namespaces``).
        public var attributes: [XMLAttribute]
        /// The namespaces declared on this element.
        public var namespaces: [XMLNamespace]
        /// Its children in document order.
        public var children: [Node]

        /// Creates an element.
        ///
        /// - Parameters:
        ///   - name: The name.
        ///   - attributes: Default none.
        ///   - namespaces: Default none.
        ///   - children: Default none.
        public init(name: XMLName, attributes: [XMLAttribute] = [], namespaces: [XMLNamespace] = [], children: [Node] = []) {
            self.name = name
            self.attributes = attributes
            self.namespaces = namespaces
            self.children = children
        }

        /// The value of the first attribute with this local name and, when `namespace` is given, this
        /// namespace URI; `nil` when there is none.
        public func attribute(_ localName: String, namespace: String? = nil) -> String? {
            attributes.first { $0.name.matches(localName, namespace: namespace) }?.value
        }

        /// The child elements.
        public var elements: [Element] { children.compactMap(\.element) }

        /// The child elements with this local name and, when `namespace` is given, this namespace URI.
        public func elements(named localName: String, namespace: String? = nil) -> [Element] {
            children.compactMap { child in
                guard case .element(let element) = child, element.name.matches(localName, namespace: namespace) else { return nil }
                return element
            }
        }

        /// The first child element with this local name (and namespace URI, when given), or `nil`.
        public func firstElement(named localName: String, namespace: String? = nil) -> Element? {
            for case .element(let element) in children where element.name.matches(localName, namespace: namespace) {
                return element
            }
            return nil
        }

        /// The text and CDATA of all descendants, in document order (XPath's string value).
        public var text: String {
            var text = ""
            appendText(to: &text)
            return text
        }

        private func appendText(to text: inout String) {
            for child in children {
                switch child {
                case .text(let string), .cdata(let string): text += string
                case .element(let element): element.appendText(to: &text)
                case .comment, .processingInstruction: break
                }
            }
        }
    }
}
