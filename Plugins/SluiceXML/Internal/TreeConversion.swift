import CLibXML2

/// Turns a libxml2 document into ``XMLTree`` values, recording each element's place in document
/// order in its node's `_private` field so XPath results can be mapped back to the values.
struct TreeConversion {
    /// Every element, in document order.
    private(set) var elements: [XMLTree.Element] = []
    /// Names and namespace URIs already made into strings.
    private let strings = NameCache()

    /// The top-level nodes of `document` (the root element among them).
    mutating func nodes(of document: xmlDocPtr) -> [XMLTree.Node] {
        children(of: document.pointee.children)
    }

    /// The value of an attribute node.
    static func attributeValue(_ attribute: UnsafeMutablePointer<xmlAttr>) -> String {
        guard let first = attribute.pointee.children else { return "" }
        if first.pointee.next == nil, first.pointee.type == XML_TEXT_NODE { return LibXML2Runtime.string(first.pointee.content) }
        guard let value = xmlNodeListGetString(attribute.pointee.doc, first, 1) else { return "" }
        defer { sluice_xmlFree(value) }
        return String(cString: value)
    }

    private mutating func name(_ localName: UnsafePointer<xmlChar>?, _ namespace: UnsafeMutablePointer<xmlNs>?) -> XMLName {
        XMLName(
            strings.string(localName) ?? "", prefix: strings.string(namespace?.pointee.prefix), namespaceURI: strings.string(namespace?.pointee.href))
    }

    private mutating func children(of first: xmlNodePtr?) -> [XMLTree.Node] {
        var nodes: [XMLTree.Node] = []
        var next = first
        while let node = next {
            next = node.pointee.next
            let converted: XMLTree.Node
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                converted = .element(element(node))
            case XML_TEXT_NODE:
                let text = LibXML2Runtime.string(node.pointee.content)
                if case .text(let previous)? = nodes.last {
                    nodes[nodes.count - 1] = .text(previous + text)
                    continue
                }
                converted = .text(text)
            case XML_CDATA_SECTION_NODE:
                converted = .cdata(LibXML2Runtime.string(node.pointee.content))
            case XML_COMMENT_NODE:
                converted = .comment(LibXML2Runtime.string(node.pointee.content))
            case XML_PI_NODE:
                converted = .processingInstruction(
                    target: LibXML2Runtime.string(node.pointee.name), data: LibXML2Runtime.string(node.pointee.content))
            default:
                continue  // the DTD node; entity references do not occur (they are refused)
            }
            nodes.append(converted)
        }
        return nodes
    }

    private mutating func element(_ node: xmlNodePtr) -> XMLTree.Element {
        let index = elements.count
        node.pointee._private = UnsafeMutableRawPointer(bitPattern: index + 1)
        elements.append(XMLTree.Element(name: XMLName("")))  // its place in document order, filled below
        let name = name(node.pointee.name, node.pointee.ns)
        var namespaces: [XMLNamespace] = []
        var declaration = node.pointee.nsDef
        while let current = declaration {
            namespaces.append(XMLNamespace(prefix: strings.string(current.pointee.prefix), uri: strings.string(current.pointee.href) ?? ""))
            declaration = current.pointee.next
        }
        var attributes: [XMLAttribute] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            attributes.append(XMLAttribute(name: self.name(current.pointee.name, current.pointee.ns), value: Self.attributeValue(current)))
            attribute = current.pointee.next
        }
        let element = XMLTree.Element(
            name: name, attributes: attributes, namespaces: namespaces, children: children(of: node.pointee.children))
        elements[index] = element
        return element
    }
}
