import CLibXML2
import Foundation
import SluiceCore

/// One libxml2 parser context with Sluice's handlers and options: a push parser fed chunk by chunk,
/// or a pull parser reading bytes in place. Owns the context and, for a tree, the document until it
/// is taken; frees both.
///
/// Every call that parses runs with the calling thread's libxml2 error handlers routed to this parse
/// (see ``routed(_:)``), so what libxml2 reports outside the context's own handler (its encoding
/// layer's errors, `xmlParseChunk`'s messages) becomes the parse's diagnostic and is never printed.
final class ParserContext {
    let state: ParseState
    private let context: xmlParserCtxtPtr
    /// Where libxml2's generic messages go during this parse's calls: ``ParseState/recordMessage(_:)``.
    private let messageRoute: UnsafeMutablePointer<sluice_xml_message_route>
    private var ended = false
    /// Input held back from libxml2 until a comment that opens as `<!-->` or `<!--->` is complete (see
    /// ``holdBackStart(in:)``).
    private var held: [UInt8] = []

    private init(_ context: xmlParserCtxtPtr, state: ParseState) {
        self.context = context
        self.state = state
        messageRoute = .allocate(capacity: 1)
        messageRoute.initialize(to: sluice_xml_message_route(sink: routedMessage, owner: UnsafeMutableRawPointer(context)))
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
        messageRoute.deinitialize(count: 1)
        messageRoute.deallocate()
    }

    /// Runs a libxml2 call on this parse with the calling thread's generic and structured error handlers
    /// sending to this parse's state, and puts back whatever handlers the thread had afterwards.
    ///
    /// A threaded libxml2 keeps those handlers per thread, and this parse may be fed from a different
    /// thread each time, so they are set around every call, on the thread making it. The context's
    /// own `serror` still receives the errors raised with the context; these catch the rest (raised
    /// with none, as the encoding converter's are, or printed through the generic channel), which
    /// libxml2 would otherwise print to standard error.
    @inline(__always)
    private func routed<Value>(_ call: () -> Value) -> Value {
        let previous = sluice_xml_route_errors(messageRoute, SAXHandlers.structuredError, UnsafeMutableRawPointer(context))
        defer { sluice_xml_restore_error_handlers(previous) }
        return call()
    }

    /// Runs `call` with this thread's libxml2 error handlers discarding everything (for the calls made
    /// before a parse has a state to report to: creating its context).
    private static func quietly<Value>(_ call: () -> Value) -> Value {
        let previous = sluice_xml_route_errors(nil, nil, nil)
        defer { sluice_xml_restore_error_handlers(previous) }
        return call()
    }

    /// A push parser: ``feed(_:)`` it chunks, then ``finish()``.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlMalformed`` when libxml2 cannot make a
    ///   context (out of memory).
    static func push(_ output: ParseState.Output) throws(SluiceError) -> ParserContext {
        _ = LibXML2Runtime.ready
        guard let context = quietly({ xmlCreatePushParserCtxt(nil, nil, nil, 0, nil) }) else {
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
        let created = quietly { xmlCreateMemoryParserCtxt(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count)) }
        guard let context = created else {
            throw SluiceError(.xmlMalformed, "libxml2 could not create a parser context")
        }
        let parser = ParserContext(context, state: ParseState(output: output))
        parser.routed { _ = xmlParseDocument(context) }
        parser.ended = true
        try parser.check(finishing: true)
        // libxml2's in-memory parse takes a NUL character after the root element for the end of the
        // input and never reads what follows; the push parser refuses the same bytes.
        // (xmlByteConsumed is -1 when it cannot tell, for some encodings: nothing is refused then.)
        let consumed = Int(xmlByteConsumed(context))
        guard consumed < 0 || consumed >= bytes.count || bytes[consumed] != 0 else {
            throw SluiceError(
                .xmlMalformed, "the document has a NUL character after its root element, at byte \(consumed)")
        }
        return parser
    }

    /// Parses all of `data` at once, as ``parse(_:_:)-(UnsafeRawBufferPointer,_)`` does.
    ///
    /// - Throws: As ``parse(_:_:)-(UnsafeRawBufferPointer,_)``.
    static func parse(_ data: Data, _ output: ParseState.Output) throws(SluiceError) -> ParserContext {
        try data.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try parse(bytes, output) } }.get()
    }

    /// Parses the next chunk of `data`, as ``feed(_:)-(UnsafeRawBufferPointer)`` does.
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``.
    func feed(_ data: Data) throws(SluiceError) {
        try data.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try feed(bytes) } }.get()
    }

    /// Parses the next chunk.
    ///
    /// - Throws: ``SluiceError`` as soon as the document is known to be malformed or refused, or what
    ///   the event handler threw; the same error on every later call.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        try check(finishing: false)
        guard !ended else { throw SluiceError(.xmlMalformed, "more input after the document was finished") }
        // Only outside the root element or at its top level (where a chunk may close it): deeper content is
        // never scanned.
        guard !held.isEmpty || (state.depth <= 1 && Self.holdBackStart(in: bytes) != nil) else { return try push(bytes) }
        var data = held
        data.append(contentsOf: bytes)
        let start = data.withUnsafeBytes { Self.holdBackStart(in: $0) }
        let keep = start.map { data.count - $0 > Self.maximumHeldBytes ? data.count : $0 } ?? data.count
        held = Array(data[keep...])
        try data.withUnsafeBytes { all in
            Result { () throws(SluiceError) in try push(UnsafeRawBufferPointer(rebasing: all[..<keep])) }
        }.get()
    }

    /// The most bytes ``feed(_:)`` holds back for an unfinished comment: 16 MiB (libxml2 refuses a comment
    /// of more than 10 MB anyway).
    static let maximumHeldBytes = 16 << 20

    /// Where to stop feeding `bytes` to libxml2 for now, or `nil` to feed them all.
    ///
    /// libxml2 2.9's push parser, outside the root element, takes a comment opened as `<!-->` or `<!--->`
    /// for finished as soon as those bytes have arrived (the `-->` it looks for is made of the opener's own
    /// dashes) and refuses the document when the rest of the comment is still to come, where the
    /// whole-document parser accepts it (`Tools/Fuzz/Findings/XML/push_comment_repro.c`). Holding back
    /// from such an opener until its `-->` has arrived (and from a trailing `<`, `<!` or `<!-`, which may
    /// become one) hands libxml2 the comment whole. Holding back changes when bytes are parsed, never what
    /// they mean.
    static func holdBackStart(in bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        var index = 0
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            // "<!--", or a trailing prefix of it, which may become an opener. (Bytes compared one by one:
            // no array is made for each "<" of the scan.)
            let available = min(4, count - index)
            let matches = (available < 2 || bytes[index + 1] == 0x21) && (available < 3 || bytes[index + 2] == 0x2D)
                && (available < 4 || bytes[index + 3] == 0x2D)
            guard matches else {
                index += 1
                continue
            }
            if available < 4 { return index }
            let body = index + 4
            let first = body < count ? bytes[body] : nil
            let second = body + 1 < count ? bytes[body + 1] : nil
            // The body starts with ">" or "->", or may still (it has not arrived far enough to tell).
            let risky = first == nil || first == UInt8(ascii: ">")
                || (first == UInt8(ascii: "-") && (second == nil || second == UInt8(ascii: ">")))
            guard let end = terminator(in: bytes, from: body) else { return risky ? index : nil }
            index = end + 3
        }
        return nil
    }

    /// The index of the first `-->` at or after `start`, or `nil`.
    private static func terminator(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index + 2 < bytes.count {
            if bytes[index] == 0x2D, bytes[index + 1] == 0x2D, bytes[index + 2] == 0x3E { return index }
            index += 1
        }
        return nil
    }

    /// Hands `bytes` to libxml2.
    private func push(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        var remaining = bytes
        while !remaining.isEmpty {
            let count = min(remaining.count, 1 << 30)
            let status = routed { xmlParseChunk(context, remaining.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(count), 0) }
            noteHalt(status)
            try check(finishing: false)
            remaining = UnsafeRawBufferPointer(rebasing: remaining[count...])
        }
    }

    /// A push parser that stopped before its input ended (libxml2 halts on an encoding failure and
    /// then reads nothing more, without marking the document malformed) makes the parse malformed,
    /// unless it already has an error.
    private func noteHalt(_ status: Int32) {
        guard context.pointee.instate == XML_PARSER_EOF else { return }
        state.halted(code: status > 0 ? Int(status) : Int(XML_ERR_INTERNAL_ERROR.rawValue))
    }

    /// Ends the input: a document that is not complete by now is malformed.
    ///
    /// - Throws: As ``feed(_:)``.
    func finish() throws(SluiceError) {
        try check(finishing: false)
        guard !ended else { return }
        if !held.isEmpty {
            let rest = held
            held = []
            try rest.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try push(bytes) } }.get()
        }
        ended = true
        // Halted earlier, libxml2 would end the document without a word.
        noteHalt(0)
        try check(finishing: false)
        routed { _ = xmlParseChunk(context, nil, 0, 1) }
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

/// The generic-message sink of ``ParserContext``'s route: `owner` is the parser context.
private let routedMessage: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { owner, message in
    guard let owner, let message else { return }
    withState(owner) { $0.recordMessage(String(cString: message)) }
}
