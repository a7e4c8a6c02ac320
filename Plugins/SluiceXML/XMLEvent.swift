/// One event of a streaming parse (``XMLEventParser``), in document order.
///
/// The events do not depend on how the input was cut into chunks: a run of character data is one
/// ``characters(_:)`` event (runs longer than ``XMLEvent/maximumTextBytes`` come in pieces of that
/// size, cut where the text is the same whatever the chunks), and adjacent CDATA sections are one
/// ``cdata(_:)`` event.
public enum XMLEvent: Sendable, Hashable {
    /// An element starts: its name, its attributes (namespace declarations excluded) and the namespaces
    /// it declares.
    case startElement(XMLName, attributes: [XMLAttribute], namespaces: [XMLNamespace])
    /// An element ends.
    case endElement(XMLName)
    /// Character data, with character and predefined entity references replaced.
    case characters(String)
    /// The content of a CDATA section.
    case cdata(String)
    /// A comment's text.
    case comment(String)
    /// A processing instruction.
    case processingInstruction(target: String, data: String)

    /// The largest text of one ``characters(_:)`` or ``cdata(_:)`` event, in UTF-8 bytes (1 MiB):
    /// longer runs are delivered in pieces, so a parse holds at most this much text.
    public static let maximumTextBytes = 1 << 20
}
