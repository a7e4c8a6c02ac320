/// One event of a borrowing parse (``XMLBorrowedEventParser``), in document order: views of libxml2's
/// buffers instead of Swift values, so delivering it allocates nothing.
///
/// **Valid only during the handler call that received it**: copy what you keep (``event``, or the
/// `string` of a name, value or text). Unlike ``XMLEvent``, text comes in the pieces libxml2 hands over:
/// a run of character data may be several ``characters(_:)`` events (how many depends on the input's
/// chunks and on entity references), and a CDATA section may be several ``cdata(_:)`` events.
public enum XMLBorrowedEvent {
    /// An element starts: its name, its attributes (namespace declarations excluded) and the namespaces
    /// it declares.
    case startElement(XMLBorrowedName, attributes: XMLBorrowedAttributes, namespaces: XMLBorrowedNamespaces)
    /// An element ends.
    case endElement(XMLBorrowedName)
    /// A piece of character data, with character and predefined entity references replaced.
    case characters(XMLBytes)
    /// A piece of the content of a CDATA section.
    case cdata(XMLBytes)
    /// A comment's text.
    case comment(XMLBytes)
    /// A processing instruction.
    case processingInstruction(target: XMLBytes, data: XMLBytes)

    /// A copy as an ``XMLEvent`` (text pieces are not joined).
    public var event: XMLEvent {
        switch self {
        case .startElement(let name, let attributes, let namespaces):
            return .startElement(name.name, attributes: attributes.map(\.attribute), namespaces: namespaces.map(\.namespace))
        case .endElement(let name):
            return .endElement(name.name)
        case .characters(let text):
            return .characters(text.string)
        case .cdata(let text):
            return .cdata(text.string)
        case .comment(let text):
            return .comment(text.string)
        case .processingInstruction(let target, let data):
            return .processingInstruction(target: target.string, data: data.string)
        }
    }
}

@available(*, unavailable, message: "borrowed events are valid only during the handler call")
extension XMLBorrowedEvent: Sendable {}
