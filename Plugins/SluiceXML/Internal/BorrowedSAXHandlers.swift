import CLibXML2
import SluiceCore

/// The SAX handlers of a borrowing parse (``XMLBorrowedEventParser``): each hands the handler views of
/// the pointers libxml2 passes in, making no Swift value, and delivers text in libxml2's pieces. The
/// refusals, error capture, depth limit and stopping are ``SAXHandlers``' and ``ParseState``'s, shared
/// with the other parses.
enum BorrowedSAXHandlers {
    /// Sets the event handlers on a cleared SAX2 table (``SAXHandlers/install(on:for:)`` adds the rest).
    static func install(on sax: UnsafeMutablePointer<xmlSAXHandler>) {
        sax.pointee.startElementNs = startElement
        sax.pointee.endElementNs = endElement
        sax.pointee.characters = characters
        sax.pointee.ignorableWhitespace = characters
        sax.pointee.cdataBlock = cdataBlock
        sax.pointee.comment = comment
        sax.pointee.processingInstruction = processingInstruction
    }
}

private let startElement: startElementNsSAX2Func = {
    context, localName, prefix, uri, namespaceCount, namespaceList, attributeCount, defaultedCount, attributeList in
    withState(context) { state in
        state.enter()
        // The last `defaultedCount` are DTD defaults, which Sluice does not apply.
        let written = Int(attributeCount) - Int(defaultedCount)
        let attributes: XMLBorrowedAttributes
        if written > 0, let attributeList {
            let fields = UnsafePointer(attributeList)
            attributes = XMLBorrowedAttributes(
                fields: fields, values: state.borrowAttributeValues(fields, count: written), count: written)
        } else {
            attributes = XMLBorrowedAttributes(fields: nil, values: nil, count: 0)
        }
        let namespaces = XMLBorrowedNamespaces(
            pairs: namespaceList.map { UnsafePointer($0) }, count: namespaceList == nil ? 0 : Int(namespaceCount))
        state.deliver(borrowed: .startElement(
            XMLBorrowedName(local: localName, prefix: prefix, uri: uri), attributes: attributes, namespaces: namespaces))
    }
}

private let endElement: endElementNsSAX2Func = { context, localName, prefix, uri in
    withState(context) { state in
        state.leave()
        state.deliver(borrowed: .endElement(XMLBorrowedName(local: localName, prefix: prefix, uri: uri)))
    }
}

private let characters: charactersSAXFunc = { context, bytes, count in
    guard let bytes, count > 0 else { return }
    withState(context) { $0.deliver(borrowed: .characters(XMLBytes(UnsafeBufferPointer(start: bytes, count: Int(count))))) }
}

private let cdataBlock: cdataBlockSAXFunc = { context, bytes, count in
    guard let bytes, count > 0 else { return }
    withState(context) { $0.deliver(borrowed: .cdata(XMLBytes(UnsafeBufferPointer(start: bytes, count: Int(count))))) }
}

private let comment: commentSAXFunc = { context, text in
    withState(context) { $0.deliver(borrowed: .comment(XMLBytes.optional(text) ?? .empty)) }
}

private let processingInstruction: processingInstructionSAXFunc = { context, target, data in
    withState(context) { state in
        state.deliver(borrowed: .processingInstruction(
            target: XMLBytes.optional(target) ?? .empty, data: XMLBytes.optional(data) ?? .empty))
    }
}
