import CLibXML2
import Foundation
import SluiceCore

/// What one parse keeps while libxml2 calls back into Sluice: where events go, the first error
/// libxml2 reported, and Sluice's own reason to stop (an entity refused, the depth limit, the
/// handler's error).
///
/// Every streaming parse delivers borrowed events (``deliver(borrowed:)``); an owned-event parse sends
/// them through an ``OwnedEventView``, which gathers text and makes the ``XMLEvent``s.
///
/// Reached from the callbacks through the parser context's `_private` field; used on the thread that
/// drives the parse only.
final class ParseState {
    /// What the parse produces.
    enum Output {
        /// Events handed to a handler (a SAX-style parse; no document is built), made from the borrowed
        /// events by an ``OwnedEventView``.
        case events((XMLEvent) throws(SluiceError) -> Void)
        /// Borrowed events handed to a handler as they are: views of libxml2's buffers, no values made.
        case borrowedEvents((XMLBorrowedEvent) throws(SluiceError) -> Void)
        /// A libxml2 document (libxml2's own tree builder, with Sluice's refusals).
        case tree
    }

    /// What every event touches, behind a pointer: no exclusivity checks or reference counting on the
    /// hot path (the state is used by one thread at a time).
    private struct Hot {
        /// Whether the parse was stopped: `failure` is set, and no event is delivered any more.
        var stopped = false
        /// The elements open.
        var depth = 0
        /// See ``ParseState/cdataEndsWithCR``.
        var cdataEndsWithCR = false
    }

    let output: Output
    /// The parser context, set once it exists, for stopping it.
    var context: xmlParserCtxtPtr?
    /// Why Sluice stopped the parse, when it did.
    private(set) var failure: SluiceError?
    /// libxml2's first error (level error or fatal), from the context's handler or the thread's
    /// handlers routed to this parse; or the halt of a parser that stopped without one.
    private(set) var firstError: XMLDiagnostic?
    /// The messages libxml2 sent through its generic channel during this parse (at most
    /// ``maximumMessages``), for a halt that came with no structured error.
    private(set) var messages: [String] = []

    /// Whether the last CDATA piece delivered ended with a CR (made LF), so that an LF opening the next
    /// piece of the same section is the rest of a CR LF (see the CDATA handler).
    var cdataEndsWithCR: Bool {
        get { hot.pointee.cdataEndsWithCR }
        set { hot.pointee.cdataEndsWithCR = newValue }
    }
    /// The owned-event view the borrowed events go through, for an owned-event parse.
    private let view: OwnedEventView?
    /// The handler of a borrowing parse.
    private let borrowedHandler: ((XMLBorrowedEvent) throws(SluiceError) -> Void)?
    private let hot = UnsafeMutablePointer<Hot>.allocate(capacity: 1)
    /// The attribute values of the element starting, for borrowed events.
    private let attributeValues = UnsafeMutablePointer<AttributeValueTable>.allocate(capacity: 1)

    init(output: Output) {
        self.output = output
        switch output {
        case .events(let handler):
            view = OwnedEventView(handler: handler)
            borrowedHandler = nil
        case .borrowedEvents(let handler):
            view = nil
            borrowedHandler = handler
        case .tree:
            view = nil
            borrowedHandler = nil
        }
        hot.initialize(to: Hot())
        attributeValues.initialize(to: AttributeValueTable())
    }

    deinit {
        hot.deinitialize(count: 1)
        hot.deallocate()
        attributeValues.pointee.release()
        attributeValues.deinitialize(count: 1)
        attributeValues.deallocate()
    }

    // MARK: Errors

    /// Records libxml2's error when it is the first one that is not a warning. An error raised without
    /// a parser context (the encoding converter's) has no position of its own: it gets the parser's.
    func record(_ error: UnsafePointer<xmlError>) {
        guard firstError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
        let (line, column) = error.pointee.ctxt == nil ? position : (Int(error.pointee.line), Int(error.pointee.int2))
        firstError = XMLDiagnostic(
            line: line, column: column, code: Int(error.pointee.code),
            message: message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The most generic messages a parse keeps.
    static let maximumMessages = 16

    /// Keeps a message libxml2 sent through its generic channel (which it would otherwise print).
    func recordMessage(_ message: String) {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, messages.count < Self.maximumMessages else { return }
        messages.append(trimmed)
    }

    /// Notes that libxml2 stopped the parse on its own: unless the parse already has an error, it is
    /// malformed, with the last generic message libxml2 gave (its push parser halts on an encoding
    /// failure saying only `xmlParseChunk: encoder error`).
    func halted(code: Int) {
        guard failure == nil, firstError == nil else { return }
        let (line, column) = position
        firstError = XMLDiagnostic(
            line: line, column: column, code: code, message: messages.last ?? "libxml2 stopped reading the document")
    }

    /// Whether the parse was stopped (see ``stop(with:)``): libxml2's input may be freed then.
    var isStopped: Bool { hot.pointee.stopped }

    /// Stops the parse with Sluice's own error; the first reason to stop wins.
    func stop(with error: SluiceError) {
        if !hot.pointee.stopped {
            failure = error
            hot.pointee.stopped = true
        }
        if let context { xmlStopParser(context) }
    }

    /// Refuses an entity declaration or reference at the parser's current position.
    func refuseEntity(_ message: String) {
        let (line, column) = position
        let diagnostic = XMLDiagnostic(line: line, column: column, code: 0, message: message)
        stop(with: SluiceError(.xmlEntityRefused, "\(message) (line \(line), column \(column))", underlying: diagnostic))
    }

    /// The line and column the parser is at.
    var position: (line: Int, column: Int) {
        guard let input = context?.pointee.input else { return (0, 0) }
        return (Int(input.pointee.line), Int(input.pointee.col))
    }

    /// The error the parse ended with, if any: Sluice's own, else libxml2's first, else a document
    /// libxml2 found not well-formed without saying why.
    func outcome() -> SluiceError? {
        if let failure { return failure }
        if let firstError { return Self.malformed(firstError) }
        if let context, context.pointee.wellFormed == 0 {
            let (line, column) = position
            return Self.malformed(XMLDiagnostic(
                line: line, column: column, code: Int(context.pointee.errNo), message: "the document is not well-formed"))
        }
        return nil
    }

    static func malformed(_ diagnostic: XMLDiagnostic) -> SluiceError {
        SluiceError(
            .xmlMalformed, "the XML is not well-formed at \(diagnostic)",
            library: LibraryDiagnostic(library: "libxml2", code: diagnostic.code, message: diagnostic.message),
            underlying: diagnostic)
    }

    // MARK: Events

    /// The deepest nesting accepted, libxml2's own limit (which its push parser does not check).
    static let maximumDepth = 256

    /// Counts an element that starts; past ``maximumDepth`` the parse stops as malformed.
    @inline(__always)
    func enter() {
        hot.pointee.depth += 1
        if hot.pointee.depth > Self.maximumDepth { refuseDepth() }
    }

    /// Counts an element that ends.
    @inline(__always)
    func leave() { hot.pointee.depth -= 1 }

    /// The elements open now.
    var depth: Int { hot.pointee.depth }

    private func refuseDepth() {
        // Text gathered before the element that goes too deep is delivered first, as it would be
        // before any other event.
        flushText()
        let (line, column) = position
        stop(with: Self.malformed(XMLDiagnostic(
            line: line, column: column, code: Int(XML_ERR_INTERNAL_ERROR.rawValue),
            message: "Excessive depth in document: \(Self.maximumDepth)")))
    }

    /// Delivers a borrowed event, unless the parse was stopped; a handler's error stops it.
    @inline(__always)
    func deliver(borrowed event: XMLBorrowedEvent) {
        guard !hot.pointee.stopped else { return }
        if hot.pointee.cdataEndsWithCR, case .cdata = event {} else { hot.pointee.cdataEndsWithCR = false }
        do {
            if let view {
                try view.handle(event)
            } else if let borrowedHandler {
                try borrowedHandler(event)
            }
        } catch {
            stop(with: error)
        }
    }

    /// Delivers the text an owned-event parse has gathered (before the end of the document), unless
    /// the parse was stopped; a handler's error stops it.
    func flushText() {
        guard !hot.pointee.stopped, let view else { return }
        do {
            try view.flush()
        } catch {
            stop(with: error)
        }
    }

    /// The values of a SAX2 attribute array's first `count` attributes, entity references replaced;
    /// valid until the next start element.
    @inline(__always)
    func borrowAttributeValues(
        _ fields: UnsafePointer<UnsafePointer<xmlChar>?>, count: Int
    ) -> UnsafePointer<UnsafeBufferPointer<UInt8>> {
        attributeValues.pointee.load(fields, count: count)
    }
}
