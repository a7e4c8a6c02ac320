import CLibXML2
import SluiceCore

/// The owned-event view of a parse (``XMLEventParser``, and ``XMLTree``'s builder): takes the borrowed
/// events of the one SAX handler set (``SAXHandlers``) and hands its handler ``XMLEvent`` values.
///
/// It copies what a borrowed event lends (names made once per distinct libxml2 string, through a
/// ``NameCache``), joins text libxml2 hands over in pieces into one event, and cuts runs longer than
/// ``XMLEvent/maximumTextBytes`` at the same places whatever the chunks. Gathered text is delivered
/// before the next event of another kind, and at the end of the document (``flush()``).
///
/// The handler's error propagates out of ``handle(_:)`` and ``flush()``; ``ParseState`` stops the parse
/// with it, so no event follows. Used by one parse, on the thread that drives it.
final class OwnedEventView {
    private let handler: (XMLEvent) throws(SluiceError) -> Void
    private let names = NameCache()

    /// The text being gathered, behind a pointer: no exclusivity checks on the hot path (one thread
    /// uses the view at a time).
    private struct Gathered {
        var text: [UInt8] = []
        var cdata: [UInt8] = []
    }
    private let gathered = UnsafeMutablePointer<Gathered>.allocate(capacity: 1)

    init(handler: @escaping (XMLEvent) throws(SluiceError) -> Void) {
        self.handler = handler
        gathered.initialize(to: Gathered())
    }

    deinit {
        gathered.deinitialize(count: 1)
        gathered.deallocate()
    }

    /// Turns one borrowed event into what the owned handler receives: text is gathered, anything else
    /// delivered after the text gathered before it.
    @inline(__always)
    func handle(_ event: XMLBorrowedEvent) throws(SluiceError) {
        switch event {
        case .characters(let bytes):
            try gather(bytes.buffer, cdata: false)
        case .cdata(let bytes):
            try gather(bytes.buffer, cdata: true)
        case .startElement(let name, let attributes, let namespaces):
            try flush()
            try handler(.startElement(
                self.name(name), attributes: self.attributes(attributes), namespaces: self.namespaces(namespaces)))
        case .endElement(let name):
            try flush()
            try handler(.endElement(self.name(name)))
        case .comment(let bytes):
            try flush()
            try handler(.comment(bytes.string))
        case .processingInstruction(let target, let data):
            try flush()
            try handler(.processingInstruction(target: target.string, data: data.string))
        }
    }

    /// Delivers the text gathered so far, characters before CDATA.
    @inline(__always)
    func flush() throws(SluiceError) {
        if !gathered.pointee.text.isEmpty || !gathered.pointee.cdata.isEmpty { try flushGatheredText() }
    }

    // MARK: Values

    @inline(__always)
    private func name(_ name: XMLBorrowedName) -> XMLName {
        XMLName(names.string(name.local) ?? "", prefix: names.string(name.prefixPointer), namespaceURI: names.string(name.uriPointer))
    }

    private func namespaces(_ namespaces: XMLBorrowedNamespaces) -> [XMLNamespace] {
        guard namespaces.count > 0, let pairs = namespaces.pairs else { return [] }
        var result: [XMLNamespace] = []
        result.reserveCapacity(namespaces.count)
        for index in 0..<namespaces.count {
            result.append(XMLNamespace(prefix: names.string(pairs[2 * index]), uri: names.string(pairs[2 * index + 1]) ?? ""))
        }
        return result
    }

    private func attributes(_ attributes: XMLBorrowedAttributes) -> [XMLAttribute] {
        guard attributes.count > 0, let fields = attributes.fields, let values = attributes.values else { return [] }
        var result: [XMLAttribute] = []
        result.reserveCapacity(attributes.count)
        for index in 0..<attributes.count {
            let attribute = fields + 5 * index
            // An attribute libxml2 gives no value bounds is left out (the borrowed view shows it empty).
            guard attribute[3] != nil, attribute[4] != nil else { continue }
            result.append(XMLAttribute(
                name: XMLName(names.string(attribute[0]) ?? "", prefix: names.string(attribute[1]), namespaceURI: names.string(attribute[2])),
                value: String(decoding: values[index], as: UTF8.self)))
        }
        return result
    }

    // MARK: Text

    /// Gathers character data (or CDATA) into one event; runs of ``XMLEvent/maximumTextBytes`` or more
    /// are delivered in pieces of that size.
    private func gather(_ chunk: UnsafeBufferPointer<UInt8>, cdata isCDATA: Bool) throws(SluiceError) {
        guard !chunk.isEmpty else { return }
        if isCDATA {
            if !gathered.pointee.text.isEmpty { try flush() }
            gathered.pointee.cdata.append(contentsOf: chunk)
            while gathered.pointee.cdata.count >= XMLEvent.maximumTextBytes {
                try deliverPiece(of: &gathered.pointee.cdata, as: XMLEvent.cdata)
            }
        } else {
            if !gathered.pointee.cdata.isEmpty { try flush() }
            gathered.pointee.text.append(contentsOf: chunk)
            while gathered.pointee.text.count >= XMLEvent.maximumTextBytes {
                try deliverPiece(of: &gathered.pointee.text, as: XMLEvent.characters)
            }
        }
    }

    private func flushGatheredText() throws(SluiceError) {
        if !gathered.pointee.text.isEmpty {
            let string = String(decoding: gathered.pointee.text, as: UTF8.self)
            gathered.pointee.text.removeAll(keepingCapacity: true)
            try handler(.characters(string))
        }
        if !gathered.pointee.cdata.isEmpty {
            let string = String(decoding: gathered.pointee.cdata, as: UTF8.self)
            gathered.pointee.cdata.removeAll(keepingCapacity: true)
            try handler(.cdata(string))
        }
    }

    private func deliverPiece(of buffer: inout [UInt8], as event: (String) -> XMLEvent) throws(SluiceError) {
        var cut = XMLEvent.maximumTextBytes
        while cut > 0, cut < buffer.count, buffer[cut] & 0xC0 == 0x80 { cut -= 1 }  // not inside a UTF-8 sequence
        let piece = String(decoding: buffer[..<cut], as: UTF8.self)
        buffer.removeFirst(cut)
        try handler(event(piece))
    }
}
