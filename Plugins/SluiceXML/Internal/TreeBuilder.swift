/// Builds ``XMLTree`` values from the events of a parse: elements as they end, and the top-level nodes.
final class TreeBuilder {
    private var open: [XMLTree.Element] = []
    /// The nodes outside the root element, and the root.
    private(set) var topLevel: [XMLTree.Node] = []
    /// The root element, once it has ended.
    private(set) var root: XMLTree.Element?

    func handle(_ event: XMLEvent) {
        switch event {
        case .startElement(let name, let attributes, let namespaces):
            open.append(XMLTree.Element(name: name, attributes: attributes, namespaces: namespaces))
        case .endElement:
            guard let finished = open.popLast() else { return }
            if open.isEmpty { root = finished }
            append(.element(finished))
        case .characters(let text):
            appendText(text, cdata: false)
        case .cdata(let text):
            appendText(text, cdata: true)
        case .comment(let text):
            append(.comment(text))
        case .processingInstruction(let target, let data):
            append(.processingInstruction(target: target, data: data))
        }
    }

    /// Adds a node to the open element, or to the top level.
    private func append(_ node: XMLTree.Node) {
        if open.isEmpty {
            topLevel.append(node)
        } else {
            open[open.count - 1].children.append(node)
        }
    }

    /// Adds text; text continuing text of its kind (a long run delivered in pieces) joins it.
    private func appendText(_ text: String, cdata: Bool) {
        guard !open.isEmpty else { return }
        let last = open.count - 1
        switch open[last].children.last {
        case .text(let previous)? where !cdata:
            open[last].children[open[last].children.count - 1] = .text(previous + text)
        case .cdata(let previous)? where cdata:
            open[last].children[open[last].children.count - 1] = .cdata(previous + text)
        default:
            open[last].children.append(cdata ? .cdata(text) : .text(text))
        }
    }
}
