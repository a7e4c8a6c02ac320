import Foundation
import SluiceCore

/// A streaming, SAX-style XML parser on libxml2's push parser: feed it chunks as they arrive and it
/// hands ``XMLEvent``s to a handler, holding only the unparsed rest of the input and at most
/// ``XMLEvent/maximumTextBytes`` of text.
///
/// ```swift
/// let (body, response) = try await session.bytes(for: request)
/// var titles: [String] = []
/// var inTitle = false
/// try await XMLEventParser.parse(body) { event in
///     switch event {
///     case .startElement(let name, _, _): inTitle = name.localName == "title"
///     case .characters(let text) where inTitle: titles.append(text)
///     case .endElement: inTitle = false
///     default: break
///     }
/// }
/// ```
///
/// It is a view of the same parse as ``XMLBorrowedEventParser`` (one set of libxml2 handlers): each
/// ``XMLEvent`` is a copy of what a ``XMLBorrowedEvent`` lends, with text pieces joined. Use the borrowed
/// parser when a parse must allocate nothing per event.
///
/// It is as safe as ``XMLTree``: no network, no DTD loaded, entity declarations refused. Events
/// already delivered stay delivered when a later part of the document turns out to be malformed:
/// the error comes from the ``feed(_:)-(UnsafeRawBufferPointer)`` (or ``feed(_:)-(Data)``) or
/// ``finish()`` that found it, and no event follows it.
///
/// A parser is used from one thread or task at a time.
public final class XMLEventParser {
    private let parser: ParserContext

    /// Creates a parser delivering events to `handler`. A handler that throws stops the parse; its
    /// error is what ``feed(_:)-(UnsafeRawBufferPointer)`` or ``finish()`` throws.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlMalformed``
    ///   when libxml2 cannot make a parser (out of memory).
    public init(handler: @escaping (XMLEvent) throws(SluiceError) -> Void) throws(SluiceError) {
        parser = try ParserContext.push(.events(handler))
    }

    /// Parses the next chunk of the document; any cut is allowed, even inside a UTF-8 sequence.
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

    /// Parses a whole document in memory with libxml2's pull parser (the fastest way).
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``.
    public static func parse(_ data: Data, handler: @escaping (XMLEvent) throws(SluiceError) -> Void) throws(SluiceError) {
        _ = try ParserContext.parse(data, .events(handler))
    }

    /// Parses a document that arrives in chunks (the body stream of `SessionManager.bytes(for:)`),
    /// delivering events as each chunk is parsed.
    ///
    /// - Throws: As ``feed(_:)-(UnsafeRawBufferPointer)``; a ``SluiceError`` that `chunks`
    ///   throws as it is; another error from `chunks` as ``SluiceError/Code/bodyStreamFailed``.
    public static func parse<Chunks: AsyncSequence>(
        _ chunks: Chunks, handler: @escaping (XMLEvent) throws(SluiceError) -> Void
    ) async throws(SluiceError) where Chunks.Element == Data {
        let parser = try ParserContext.push(.events(handler))
        try await ChunkFeeder.feed(chunks, to: parser)
    }
}
