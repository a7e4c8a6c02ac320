import Foundation
import SluiceCore

/// What an ``XMLTree`` needs for XPath: the bytes it was parsed from and its root. The first query
/// makes libxml2's document from the bytes and lists the elements in document order (a tree that is
/// never queried never holds either); later queries reuse them.
final class XPathQueries: Sendable {
    private let source: Data
    private let root: XMLTree.Element
    private let document = Locked<XPathDocument?>(nil)

    init(source: Data, root: XMLTree.Element) {
        self.source = source
        self.root = root
    }

    /// The elements under and including `root`, in document order.
    private static func elements(from root: XMLTree.Element) -> [XMLTree.Element] {
        var elements: [XMLTree.Element] = []
        func visit(_ element: XMLTree.Element) {
            elements.append(element)
            for case .element(let child) in element.children { visit(child) }
        }
        visit(root)
        return elements
    }

    /// Evaluates `expression` on the document, making it first if no query has yet.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlXPathInvalid``.
    func evaluate(_ expression: String, namespaces: [String: String]) throws(SluiceError) -> XPathResult {
        let document = try self.document.withLock { (document) throws(SluiceError) -> XPathDocument in
            if let document { return document }
            let made = try XPathDocument(source: source, elements: Self.elements(from: root))
            document = made
            return made
        }
        return try document.evaluate(expression, namespaces: namespaces)
    }
}
