import CLibXML2
import SluiceCore

/// The SAX handlers Sluice gives libxml2: the event handlers of a streaming parse, and the
/// refusals and error capture that every kind of parse uses (events, borrowed events, tree); the
/// borrowed events' own handlers are ``BorrowedSAXHandlers``.
///
/// Every callback receives the parser context as its user data and finds the ``ParseState`` in the
/// context's `_private` field.
enum SAXHandlers {
    /// Installs Sluice's handlers on a new context's SAX table: for events, a table of Sluice's own;
    /// for a tree, libxml2's tree builder with the refusals and error capture on top.
    static func install(on context: xmlParserCtxtPtr, for output: ParseState.Output) {
        guard let sax = context.pointee.sax else { return }
        switch output {
        case .events:
            sax.pointee = xmlSAXHandler()
            sax.pointee.initialized = UInt32(XML_SAX2_MAGIC)
            sax.pointee.startElementNs = startElement
            sax.pointee.endElementNs = endElement
            sax.pointee.characters = characters
            sax.pointee.ignorableWhitespace = characters
            sax.pointee.cdataBlock = cdataBlock
            sax.pointee.comment = comment
            sax.pointee.processingInstruction = processingInstruction
        case .borrowedEvents:
            sax.pointee = xmlSAXHandler()
            sax.pointee.initialized = UInt32(XML_SAX2_MAGIC)
            BorrowedSAXHandlers.install(on: sax)
        case .tree:
            break
        }
        sax.pointee.entityDecl = entityDeclaration
        sax.pointee.unparsedEntityDecl = unparsedEntityDeclaration
        sax.pointee.reference = entityReference
        sax.pointee.externalSubset = externalSubset
        sax.pointee.resolveEntity = resolveEntity
        sax.pointee.serror = structuredError
    }

    /// Records libxml2's structured errors in the parse's state: the context's `serror`, and the
    /// thread's structured handler while ``ParserContext`` routes it (the user data is the parser
    /// context either way).
    static let structuredError: xmlStructuredErrorFunc = { context, error in
        guard let error else { return }
        withState(context) { $0.record(error) }
    }
}

/// Runs `body` with the parse's state, without retaining it (the parser context owner keeps it alive
/// while libxml2 calls back).
@inline(__always)
func withState(_ context: UnsafeMutableRawPointer?, _ body: (ParseState) -> Void) {
    let parser = context!.assumingMemoryBound(to: xmlParserCtxt.self)
    Unmanaged<ParseState>.fromOpaque(parser.pointee._private)._withUnsafeGuaranteedRef(body)
}

private let startElement: startElementNsSAX2Func = {
    context, localName, prefix, uri, namespaceCount, namespaceList, attributeCount, defaultedCount, attributeList in
    withState(context) { state in
        state.flushText()
        state.enter()
        let name = XMLName(state.name(localName) ?? "", prefix: state.name(prefix), namespaceURI: state.name(uri))
        var namespaces: [XMLNamespace] = []
        if namespaceCount > 0, let namespaceList {
            namespaces.reserveCapacity(Int(namespaceCount))
            for index in 0..<Int(namespaceCount) {
                namespaces.append(XMLNamespace(
                    prefix: state.name(namespaceList[2 * index]), uri: state.name(namespaceList[2 * index + 1]) ?? ""))
            }
        }
        var attributes: [XMLAttribute] = []
        // The last `defaultedCount` are DTD defaults, which Sluice does not apply (as the tree builder
        // without XML_PARSE_DTDATTR does not).
        let written = Int(attributeCount) - Int(defaultedCount)
        if written > 0, let attributeList {
            attributes.reserveCapacity(written)
            // The values with libxml2's `&#38;` decoded, as the borrowing parse sees them.
            let values = state.borrowAttributeValues(UnsafePointer(attributeList), count: written)
            for index in 0..<written {
                let fields = attributeList + 5 * index
                guard fields[3] != nil, fields[4] != nil else { continue }
                attributes.append(XMLAttribute(
                    name: XMLName(state.name(fields[0]) ?? "", prefix: state.name(fields[1]), namespaceURI: state.name(fields[2])),
                    value: String(decoding: values[index], as: UTF8.self)))
            }
        }
        state.deliver(.startElement(name, attributes: attributes, namespaces: namespaces))
    }
}

private let endElement: endElementNsSAX2Func = { context, localName, prefix, uri in
    withState(context) { state in
        state.flushText()
        state.leave()
        state.deliver(.endElement(XMLName(state.name(localName) ?? "", prefix: state.name(prefix), namespaceURI: state.name(uri))))
    }
}

private let characters: charactersSAXFunc = { context, bytes, count in
    withState(context) { $0.gather(bytes, count: count, cdata: false) }
}

private let cdataBlock: cdataBlockSAXFunc = { context, bytes, count in
    withState(context) { $0.gather(bytes, count: count, cdata: true) }
}

private let comment: commentSAXFunc = { context, text in
    withState(context) { state in
        state.flushText()
        state.deliver(.comment(LibXML2Runtime.string(text)))
    }
}

private let processingInstruction: processingInstructionSAXFunc = { context, target, data in
    withState(context) { state in
        state.flushText()
        state.deliver(.processingInstruction(target: LibXML2Runtime.string(target), data: LibXML2Runtime.string(data)))
    }
}

// MARK: Refusals (both kinds of parse)

private let entityDeclaration: entityDeclSAXFunc = { context, name, type, _, systemID, _ in
    let kind: String
    switch xmlEntityType(UInt32(type)) {
    case XML_INTERNAL_PARAMETER_ENTITY, XML_EXTERNAL_PARAMETER_ENTITY: kind = "parameter entity %"
    default: kind = "entity "
    }
    let source = systemID.map { " with SYSTEM \(String(cString: $0).debugDescription)" } ?? ""
    withState(context) {
        $0.refuseEntity("the DTD declares the \(kind)\(LibXML2Runtime.string(name))\(source); entity declarations are refused")
    }
}

private let unparsedEntityDeclaration: unparsedEntityDeclSAXFunc = { context, name, _, _, _ in
    withState(context) {
        $0.refuseEntity("the DTD declares the unparsed entity \(LibXML2Runtime.string(name)); entity declarations are refused")
    }
}

private let entityReference: referenceSAXFunc = { context, name in
    withState(context) {
        $0.refuseEntity("&\(LibXML2Runtime.string(name)); refers to an entity that is not declared; only XML's predefined entities are read")
    }
}

/// External subsets are never read.
private let externalSubset: externalSubsetSAXFunc = { _, _, _, _ in }

/// External entities are never resolved.
private let resolveEntity: resolveEntitySAXFunc = { _, _, _ in nil }
