import Foundation
import SluiceCore

/// A parsed XML document as Swift values: its root element, its top-level nodes, and XPath queries
/// that libxml2 evaluates.
///
/// Parsing is safe by default: no network access, no DTD loaded, and a document that declares an
/// entity (the form of billion-laughs and external-entity attacks) is refused with
/// ``SluiceError/Code/xmlEntityRefused`` before anything is expanded or read. A document
/// that is not well-formed is ``SluiceError/Code/xmlMalformed`` with the line and column
/// in ``SluiceError/xmlDiagnostic``.
///
/// ```swift
/// let tree = try XMLTree(parsing: body)
/// let titles = try tree.xpath("//atom:title", namespaces: ["atom": "http://www.w3.org/2005/Atom"]).strings
/// ```
///
/// The values are built from the parse's events. XPath runs on a libxml2 document that the first query
/// parses from the bytes the tree keeps, and later queries reuse. A tree is immutable and may be shared
/// and queried from many threads at once.
public struct XMLTree: Sendable, Equatable, Encodable {
    /// The root element.
    public let root: Element
    /// The top-level nodes in document order: the root element, and comments and processing
    /// instructions before or after it.
    public let nodes: [Node]
    /// The XML declaration's version (`1.0`; libxml2 reports `1.0` for a document without a declaration).
    public let version: String?
    /// The encoding the XML declaration names (`UTF-8`), or `nil` when it names none.
    public let encoding: String?

    private let queries: XPathQueries

    /// Parses a whole document.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlMalformed``
    ///   (including an empty body) or ``SluiceError/Code/xmlEntityRefused``.
    public init(parsing data: Data) throws(SluiceError) {
        let builder = TreeBuilder()
        let parser = try ParserContext.parse(data, .events(builder.handle))
        try self.init(builder, parser, source: data)
    }

    /// Parses a document that arrives in chunks, such as the body stream of
    /// `SessionManager.bytes(for:)`. The chunks are kept (for XPath) as the tree is built.
    ///
    /// - Throws: As ``init(parsing:)``, as soon as the document is known to be malformed or refused;
    ///   a ``SluiceError`` that `chunks` throws as it is; another error from `chunks` as
    ///   ``SluiceError/Code/bodyStreamFailed``.
    public static func parse<Chunks: AsyncSequence>(_ chunks: Chunks) async throws(SluiceError) -> XMLTree
    where Chunks.Element == Data {
        let builder = TreeBuilder()
        let parser = try ParserContext.push(.events(builder.handle))
        var source = Data()
        try await ChunkFeeder.feed(chunks, to: parser) { source.append($0) }
        return try XMLTree(builder, parser, source: source)
    }

    private init(_ builder: TreeBuilder, _ parser: ParserContext, source: Data) throws(SluiceError) {
        guard let root = builder.root else {
            throw SluiceError(.xmlMalformed, "the document has no root element")
        }
        self.root = root
        self.nodes = builder.topLevel
        (self.version, self.encoding) = parser.declaration
        self.queries = XPathQueries(source: source, root: root)
    }

    /// Evaluates an XPath 1.0 expression with libxml2 on this document, from the document node.
    ///
    /// - Parameters:
    ///   - expression: The expression (`//item[@id='2']/title`, `count(//item)`).
    ///   - namespaces: Prefixes the expression uses, bound to namespace URIs. Default none: elements in
    ///     a namespace (even a default one) are then reachable only through a prefix bound here.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/xmlXPathInvalid``
    ///   for an expression that does not compile or evaluate, or uses a prefix not in `namespaces`;
    ///   ``SluiceError/Code/xmlMalformed`` when libxml2's document cannot hold the tree (a text
    ///   node over libxml2's 10 MB limit).
    public func xpath(_ expression: String, namespaces: [String: String] = [:]) throws(SluiceError) -> XPathResult {
        try queries.evaluate(expression, namespaces: namespaces)
    }

    /// Whether two trees hold the same nodes, version and encoding.
    public static func == (lhs: XMLTree, rhs: XMLTree) -> Bool {
        lhs.nodes == rhs.nodes && lhs.version == rhs.version && lhs.encoding == rhs.encoding
    }

    private enum CodingKeys: String, CodingKey {
        case nodes, version, encoding
    }

    /// Encodes the nodes, version and encoding.
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nodes, forKey: .nodes)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeIfPresent(encoding, forKey: .encoding)
    }
}
