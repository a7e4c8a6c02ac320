import CLibXML2
import SluiceCore

/// One libxml2 parser context with Sluice's handlers and options: a push parser fed chunk by chunk,
/// or a pull parser reading bytes in place. Owns the context and, for a tree, the document until it
/// is taken; frees both.
final class ParserContext {
    let state: ParseState
    private let context: xmlParserCtxtPtr
    private var ended = false

    private init(_ context: xmlParserCtxtPtr, state: ParseState) {
        self.context = context
        self.state = state
        state.context = context
        context.pointee._private = Unmanaged.passUnretained(state).toOpaque()
        SAXHandlers.install(on: context, for: state.output)
        xmlCtxtUseOptions(context, LibXML2Runtime.options)
    }

    deinit {
        if let document = context.pointee.myDoc {
            context.pointee.myDoc = nil
            xmlFreeDoc(document)
        }
        xmlFreeParserCtxt(context)
    }

    /// A push parser: ``feed(_:)`` it chunks, then ``finish()``.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlMalformed`` when libxml2 cannot make a
    ///   context (out of memory).
    static func push(_ output: ParseState.Output) throws(SluiceError) -> ParserContext {
        _ = LibXML2Runtime.ready
        guard let context = xmlCreatePushParserCtxt(nil, nil, nil, 0, nil) else {
            throw SluiceError(.xmlMalformed, "libxml2 could not create a parser context")
        }
        return ParserContext(context, state: ParseState(output: output))
    }

    /// Parses all of `bytes` at once with the pull parser, and returns the finished
    /// parser.
    ///
    /// - Throws: ``SluiceError`` for a document that is not well-formed or is refused.
    static func parse(_ bytes: UnsafeRawBufferPointer, _ output: ParseState.Output) throws(SluiceError) -> ParserContext {
        _ = LibXML2Runtime.ready
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else {
            // Nothing to read in place (libxml2 refuses an empty buffer), or more than it reads at once.
            let parser = try push(output)
            try parser.feed(bytes)
            try parser.finish()
            return parser
        }
        // libxml2 copies the bytes into its input buffer (2.9's static buffers mis-parse large inputs).
        guard let context = xmlCreateMemoryParserCtxt(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count)) else {
            throw SluiceError(.xmlMalformed, "libxml2 could not create a parser context")
        }
        let parser = ParserContext(context, state: ParseState(output: output))
        xmlParseDocument(context)
        parser.ended = true
        try parser.check(finishing: true)
        return parser
    }

    /// Parses the next chunk.
    ///
    /// - Throws: ``SluiceError`` as soon as the document is known to be malformed or refused, or what
    ///   the event handler threw; the same error on every later call.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        try check(finishing: false)
        guard !ended else { throw SluiceError(.xmlMalformed, "more input after the document was finished") }
        var remaining = bytes
        while !remaining.isEmpty {
            let count = min(remaining.count, 1 << 30)
            xmlParseChunk(context, remaining.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(count), 0)
            try check(finishing: false)
            remaining = UnsafeRawBufferPointer(rebasing: remaining[count...])
        }
    }

    /// Ends the input: a document that is not complete by now is malformed.
    ///
    /// - Throws: As ``feed(_:)``.
    func finish() throws(SluiceError) {
        try check(finishing: false)
        guard !ended else { return }
        ended = true
        xmlParseChunk(context, nil, 0, 1)
        try check(finishing: true)
    }

    /// The XML declaration's version (libxml2 says `1.0` without a declaration) and the encoding it
    /// names, or the one libxml2 detected from a byte-order mark.
    var declaration: (version: String?, encoding: String?) {
        let version = LibXML2Runtime.optionalString(context.pointee.version)
        var encoding = LibXML2Runtime.optionalString(context.pointee.encoding)
        if encoding == nil, context.pointee.inputNr > 0, let input = context.pointee.inputTab?[0] {
            encoding = LibXML2Runtime.optionalString(input.pointee.encoding)
        }
        return (version, encoding)
    }

    /// Takes the document a tree parse built; the caller frees it.
    func takeDocument() -> xmlDocPtr? {
        let document = context.pointee.myDoc
        context.pointee.myDoc = nil
        return document
    }

    private func check(finishing: Bool) throws(SluiceError) {
        if let error = state.outcome() { throw error }
        if finishing {
            state.flushText()
            if let error = state.outcome() { throw error }  // the handler may refuse the last text
        }
    }
}
