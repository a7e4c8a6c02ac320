/// What an XPath expression evaluates to: a node set in document order, a string, a number or a boolean.
///
/// ```swift
/// let titles = try tree.xpath("//atom:entry/atom:title", namespaces: ["atom": "http://www.w3.org/2005/Atom"]).strings
/// let count = try tree.xpath("count(//item)")   // .number(3.0)
/// ```
public enum XPathResult: Sendable, Hashable {
    /// The selected nodes, in document order.
    case nodes([XPathNode])
    /// A string (`string(//title)`).
    case string(String)
    /// A number (`count(//item)`).
    case number(Double)
    /// A boolean (`boolean(//item[@id='2'])`).
    case boolean(Bool)

    /// The elements among the selected nodes; empty for a scalar result.
    public var elements: [XMLTree.Element] {
        guard case .nodes(let nodes) = self else { return [] }
        return nodes.compactMap(\.element)
    }

    /// The string value of each selected node, or the scalar result as XPath's `string()` writes it
    /// (`3`, `0.5`, `NaN`, `true`), as one string.
    public var strings: [String] {
        switch self {
        case .nodes(let nodes): nodes.map(\.stringValue)
        case .string(let string): [string]
        case .boolean(let value): [value ? "true" : "false"]
        case .number(let number):
            if number.isNaN { ["NaN"] }
            else if number.isInfinite { [number < 0 ? "-Infinity" : "Infinity"] }
            else if number == number.rounded(), abs(number) < 1e15 { [String(Int64(number))] }
            else { [String(number)] }
        }
    }
}
