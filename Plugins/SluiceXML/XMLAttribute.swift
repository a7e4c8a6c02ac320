/// An attribute of an element: its name (with namespace) and its value, with character and predefined
/// entity references already replaced.
public struct XMLAttribute: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The attribute's name. An unprefixed attribute has no namespace, whatever the element's default
    /// namespace is (XML Namespaces §6.2).
    public var name: XMLName
    /// The value.
    public var value: String

    /// Creates an attribute.
    public init(name: XMLName, value: String) {
        self.name = name
        self.value = value
    }

    /// `qualifiedName="value"`.
    public var description: String { "\(name.qualifiedName)=\(value.debugDescription)" }
}
