import Foundation
import SluiceCore

/// A streaming XML parser like ``XMLEventParser`` that lends its handler views of libxml2's buffers
/// (``XMLBorrowedEvent``) instead of Swift values: names, attribute values and text are
/// ``XMLBytes`` that become strings only when asked for, so a parse allocates nothing per event.
///
/// ```swift
/// var titles: [String] = []
/// var inTitle = false
/// try XMLBorrowedEventParser.parse(data) { event in
///     switch event {
///     case .startElement(let name, _, _): inTitle = name.localName == "title"
///     case .characters(let text) where inTitle: titles.append(text.string)
///     case .endElement: inTitle = false
///     default: break
///     }
/// }
/// ```
///
/// **An event and everything in it is valid only during the handler call that received it**; copy what
/// you keep (``XMLBorrowedEvent/event``, or a view's `string`). Text comes in libxml2's pieces: a run of
/// character data may be several ``XMLBorrowedEvent/characters(_:)`` events.
///
/// ``XMLEventParser`` is a view of the same parse (its events are copies of these, text joined), so both
/// have the same setup and limits: no network, no DTD loaded, entity declarations refused, 256 levels of
/// nesting at most, errors with line and column. Events already delivered stay delivered when a later
/// part of the document turns out to be malformed.
///
/// A parser is used from one thread or task at a time.
public final class XMLBorrowedEventParser {
    private let parser: ParserContext

    /// Creates a push parser delivering borrowed events to `handler`. A handler that throws stops the
    /// parse; its error is what ``feed(_:)-(UnsafeRawBufferPointer)`` or ``finish()`` throws.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlMalformed``
    ///   when libxml2 cannot make a parser (out of memory).
    public init(handler: @escaping (XMLBorrowedEvent) throws(SluiceError) -> Void) throws(SluiceError) {
        parser = try ParserContext.push(.borrowedEvents(handler))
    }

    /// Parses the next chunk of the document; any cut is allowed, even inside a UTF-8 sequence. Larger
    /// chunks parse faster (libxml2 is called once per chunk).
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlMalformed`` or
    ///   ``SluiceError/Code/xmlEntityRefused`` as soon as the input shows it, or the
    ///   handler's error; the same error on every later call.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        try parser.feed(bytes)
    }

    /// Parses the next chunk of the document.
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``.
    public func feed(_ data: Data) throws(SluiceError) {
        try parser.feed(data)
    }

    /// Ends the document: one that is not complete is malformed (a truncated or empty document).
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``.
    public func finish() throws(SluiceError) {
        try parser.finish()
    }

    /// Parses a whole document in memory with libxml2's pull parser (the fastest way). The handler
    /// need not escape: it is called only during this call.
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``.
    public static func parse(_ data: Data, handler: (XMLBorrowedEvent) throws(SluiceError) -> Void) throws(SluiceError) {
        // The parser context (and the handler in it) is released before `parse` returns.
        let result = withoutActuallyEscaping(handler) { handler in
            Result { () throws(SluiceError) in _ = try ParserContext.parse(data, .borrowedEvents(handler)) }
        }
        try result.get()
    }

    /// Parses a document that arrives in chunks (the body stream of `SessionManager.bytes(for:)`),
    /// delivering borrowed events as each chunk is parsed.
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``; a ``SluiceError`` that `chunks`
    ///   throws as it is; another error from `chunks` as ``SluiceError/Code/bodyStreamFailed``.
    public static func parse<Chunks: AsyncSequence>(
        _ chunks: Chunks, handler: @escaping (XMLBorrowedEvent) throws(SluiceError) -> Void
    ) async throws(SluiceError) where Chunks.Element == Data {
        let parser = try ParserContext.push(.borrowedEvents(handler))
        try await ChunkFeeder.feed(chunks, to: parser)
    }
}
