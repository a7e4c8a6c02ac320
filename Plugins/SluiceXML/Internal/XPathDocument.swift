import CLibXML2
import Foundation
import SluiceCore

/// The libxml2 document an ``XMLTree``'s XPath queries run on, and the tree's elements in document
/// order: each element node carries its position in `_private`, so results map back to the values.
///
/// The document is not changed after `init`, and libxml2's XPath only reads a document, so queries
/// may run on many threads at once; each query has its own XPath context.
final class XPathDocument: @unchecked Sendable {
    private let document: xmlDocPtr
    private let elements: [XMLTree.Element]

    /// Parses `source` (a document already parsed once into `elements`) into a libxml2 document.
    ///
    /// - Throws: ``SluiceError`` as ``XMLTree/init(parsing:)``, which cannot happen for a source that
    ///   parsed before.
    init(source: Data, elements: [XMLTree.Element]) throws(SluiceError) {
        let parser = try ParserContext.parse(source, .tree)
        guard let document = parser.takeDocument() else { throw SluiceError(.xmlMalformed, "libxml2 built no document") }
        self.document = document
        self.elements = elements
        // Numbers the elements in document order, as the events numbered the values, and for XPath's
        // document-order sorting; once, before anyone reads.
        var position = 0
        Self.number(document.pointee.children, from: &position)
        xmlXPathOrderDocElems(document)
    }

    private static func number(_ first: xmlNodePtr?, from position: inout Int) {
        var next = first
        while let node = next {
            if node.pointee.type == XML_ELEMENT_NODE {
                position += 1
                node.pointee._private = UnsafeMutableRawPointer(bitPattern: position)
                number(node.pointee.children, from: &position)
            }
            next = node.pointee.next
        }
    }

    /// The value of an attribute node.
    private static func attributeValue(_ attribute: UnsafeMutablePointer<xmlAttr>) -> String {
        guard let first = attribute.pointee.children else { return "" }
        if first.pointee.next == nil, first.pointee.type == XML_TEXT_NODE { return LibXML2Runtime.string(first.pointee.content) }
        guard let value = xmlNodeListGetString(attribute.pointee.doc, first, 1) else { return "" }
        defer { sluice_xmlFree(value) }
        return String(cString: value)
    }

    deinit { xmlFreeDoc(document) }

    /// Evaluates `expression` with `namespaces` (prefix to URI) bound.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlXPathInvalid``.
    func evaluate(_ expression: String, namespaces: [String: String]) throws(SluiceError) -> XPathResult {
        guard let context = xmlXPathNewContext(document) else {
            throw SluiceError(.xmlXPathInvalid, "libxml2 could not create an XPath context")
        }
        defer { xmlXPathFreeContext(context) }
        context.pointee.error = xpathErrorSink  // errors stay in context.lastError; nothing is printed
        for (prefix, uri) in namespaces.sorted(by: { $0.key < $1.key }) {
            guard xmlXPathRegisterNs(context, prefix, uri) == 0 else {
                throw SluiceError(.xmlXPathInvalid, "cannot bind the XPath prefix \(prefix.debugDescription) to \(uri.debugDescription)")
            }
        }
        // libxml2 prints a few XPath errors through the thread's generic channel whatever the context
        // says (collected here for the error's message), and raises some (out of memory) with no
        // context, through the thread's structured handler (discarded: the failure is in `lastError`).
        var printed: [String] = []
        let evaluated = withUnsafeMutablePointer(to: &printed) { printed in
            var route = sluice_xml_message_route(sink: collectMessage, owner: UnsafeMutableRawPointer(printed))
            return withUnsafeMutablePointer(to: &route) { route in
                let previous = sluice_xml_route_errors(route, xpathErrorSink, nil)
                defer { sluice_xml_restore_error_handlers(previous) }
                return xmlXPathEvalExpression(expression, context)
            }
        }
        guard let object = evaluated else {
            let error = context.pointee.lastError
            let index = Int(error.code) - Int(XML_XPATH_EXPRESSION_OK.rawValue)
            let reason = Self.messages.indices.contains(index) ? Self.messages[index] : "XPath error \(error.code)"
            let detail = printed.isEmpty ? "" : " (libxml2: \(printed.joined(separator: "; ")))"
            throw SluiceError(
                .xmlXPathInvalid, "\(reason) in XPath \(expression.debugDescription) at offset \(error.int1)\(detail)",
                library: LibraryDiagnostic(library: "libxml2", code: Int(error.code), message: reason))
        }
        defer { xmlXPathFreeObject(object) }
        switch object.pointee.type {
        case XPATH_NODESET:
            return .nodes(nodes(object.pointee.nodesetval))
        case XPATH_BOOLEAN:
            return .boolean(object.pointee.boolval != 0)
        case XPATH_NUMBER:
            return .number(object.pointee.floatval)
        case XPATH_STRING:
            return .string(LibXML2Runtime.string(object.pointee.stringval))
        default:
            throw SluiceError(.xmlXPathInvalid, "XPath \(expression.debugDescription) gave a result of an unsupported type")
        }
    }

    private func nodes(_ set: xmlNodeSetPtr?) -> [XPathNode] {
        guard let set, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else { return [] }
        var nodes: [XPathNode] = []
        nodes.reserveCapacity(Int(set.pointee.nodeNr))
        let typeOffset = MemoryLayout<xmlNode>.offset(of: \xmlNode.type)!
        for index in 0..<Int(set.pointee.nodeNr) {
            guard let node = table[index] else { continue }
            // A namespace node is an xmlNs, which shares only its `type` field's place with xmlNode.
            let type = UnsafeRawPointer(node).load(fromByteOffset: typeOffset, as: xmlElementType.self)
            switch type {
            case XML_ELEMENT_NODE:
                let position = Int(bitPattern: node.pointee._private) - 1
                if elements.indices.contains(position) { nodes.append(.element(elements[position])) }
            case XML_ATTRIBUTE_NODE:
                let attribute = UnsafeMutableRawPointer(node).assumingMemoryBound(to: xmlAttr.self)
                let namespace = attribute.pointee.ns
                let name = XMLName(
                    LibXML2Runtime.string(attribute.pointee.name), prefix: LibXML2Runtime.optionalString(namespace?.pointee.prefix),
                    namespaceURI: LibXML2Runtime.optionalString(namespace?.pointee.href))
                nodes.append(.attribute(XMLAttribute(name: name, value: Self.attributeValue(attribute))))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                nodes.append(.text(LibXML2Runtime.string(node.pointee.content)))
            case XML_COMMENT_NODE:
                nodes.append(.comment(LibXML2Runtime.string(node.pointee.content)))
            case XML_PI_NODE:
                nodes.append(.processingInstruction(
                    target: LibXML2Runtime.string(node.pointee.name), data: LibXML2Runtime.string(node.pointee.content)))
            case XML_NAMESPACE_DECL:
                let namespace = UnsafeMutableRawPointer(node).assumingMemoryBound(to: xmlNs.self)
                nodes.append(.namespace(XMLNamespace(
                    prefix: LibXML2Runtime.optionalString(namespace.pointee.prefix),
                    uri: LibXML2Runtime.string(namespace.pointee.href))))
            case XML_DOCUMENT_NODE:
                if let root = elements.first { nodes.append(.document(root: root)) }
            default:
                continue
            }
        }
        return nodes
    }

    /// libxml2's XPath messages (`xmlXPathErrorMessages`, which it does not export), by
    /// `code - XML_XPATH_EXPRESSION_OK`.
    private static let messages = [
        "Ok", "Number encoding", "Unfinished literal", "Start of literal", "Expected $ for variable reference",
        "Undefined variable", "Invalid predicate", "Invalid expression", "Missing closing curly brace",
        "Unregistered function", "Invalid operand", "Invalid type", "Invalid number of arguments",
        "Invalid context size", "Invalid context position", "Memory allocation error", "Syntax error",
        "Resource error", "Sub resource error", "Undefined namespace prefix", "Encoding error",
        "Char out of XML range", "Invalid or incomplete context", "Stack usage error", "Forbidden variable",
    ]
}

/// Keeps XPath errors in the context's `lastError` instead of libxml2's global error channel.
private let xpathErrorSink: xmlStructuredErrorFunc = { _, _ in }

/// Collects a generic message libxml2 gives during an evaluation: `owner` is an `[String]`, at most 8 kept.
private let collectMessage: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { owner, message in
    guard let owner, let message else { return }
    let messages = owner.assumingMemoryBound(to: [String].self)
    let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    if !text.isEmpty, messages.pointee.count < 8 { messages.pointee.append(text) }
}
