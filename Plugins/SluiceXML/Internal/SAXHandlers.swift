import CLibXML2
import SluiceCore

/// The SAX handlers Sluice gives libxml2: one set of event handlers for every streaming parse, and the
/// refusals and error capture that every kind of parse uses (events, borrowed events, tree).
///
/// The event handlers make no Swift value: each hands ``ParseState`` an ``XMLBorrowedEvent`` of the
/// pointers libxml2 passes in, with text in libxml2's pieces. ``XMLBorrowedEventParser``'s handler
/// receives those events as they are; ``XMLEventParser``'s (and ``XMLTree``'s builder) receive the
/// ``XMLEvent``s that ``OwnedEventView`` makes of them.
///
/// Every callback receives the parser context as its user data and finds the ``ParseState`` in the
/// context's `_private` field.
enum SAXHandlers {
    /// Installs Sluice's handlers on a new context's SAX table: for events (owned or borrowed), a table
    /// of Sluice's own; for a tree, libxml2's tree builder with the refusals and error capture on top.
    static func install(on context: xmlParserCtxtPtr, for output: ParseState.Output) {
        guard let sax = context.pointee.sax else { return }
        switch output {
        case .events, .borrowedEvents:
            sax.pointee = xmlSAXHandler()
            sax.pointee.initialized = UInt32(XML_SAX2_MAGIC)
            sax.pointee.startElementNs = startElement
            sax.pointee.endElementNs = endElement
            sax.pointee.characters = characters
            sax.pointee.ignorableWhitespace = characters
            sax.pointee.cdataBlock = cdataBlock
            sax.pointee.comment = comment
            sax.pointee.processingInstruction = processingInstruction
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
        state.enter()
        // Past the depth limit the parse is stopped, and stopping frees libxml2's input, where the
        // attribute values point: nothing more of this element is read.
        guard !state.isStopped else { return }
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
    let content = UnsafeBufferPointer(start: bytes, count: Int(count))
    withState(context) { state in
        // libxml2 2.9's push parser checks a CDATA section's bytes less strictly than its whole-document
        // parser (an overlong sequence such as C1 9C passes): refuse what is not UTF-8 here, so a document
        // gets the same verdict however it arrives.
        guard String(validating: content, as: UTF8.self) != nil else {
            let (line, column) = state.position
            return state.stop(with: ParseState.malformed(XMLDiagnostic(
                line: line, column: column, code: Int(XML_ERR_INVALID_CHAR.rawValue),
                message: "a CDATA section holds bytes that are not UTF-8")))
        }
        // The push parser also hands over CDATA as it stands in the input, where the whole-document parser
        // has normalized its line ends (XML 1.0 §2.11: CR LF and a lone CR are LF): normalize here too,
        // minding a CR LF split between two pieces.
        guard state.cdataEndsWithCR || content.contains(0x0D) else {
            return state.deliver(borrowed: .cdata(XMLBytes(content)))
        }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(content.count)
        var index = state.cdataEndsWithCR && content.first == 0x0A ? 1 : 0
        while index < content.count {
            let byte = content[index]
            index += 1
            if byte == 0x0D {
                normalized.append(0x0A)
                if index < content.count, content[index] == 0x0A { index += 1 }
            } else {
                normalized.append(byte)
            }
        }
        // Read before the event goes out: a handler that throws stops the parse, which frees libxml2's input.
        state.cdataEndsWithCR = content.last == 0x0D
        if !normalized.isEmpty {
            normalized.withUnsafeBufferPointer { state.deliver(borrowed: .cdata(XMLBytes($0))) }
        }
    }
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

// MARK: Refusals (every kind of parse)

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
