/// An attribute that libxml2 lends to an ``XMLBorrowedEventParser`` handler.
///
/// **Valid only during the handler call that received it.**
public struct XMLBorrowedAttribute {
    /// The attribute's name.
    public let name: XMLBorrowedName
    /// The value, with character and predefined entity references replaced.
    public let value: XMLBytes

    /// A copy as an ``XMLAttribute``.
    public var attribute: XMLAttribute { XMLAttribute(name: name.name, value: value.string) }
}

@available(*, unavailable, message: "borrowed attributes are valid only during the handler call")
extension XMLBorrowedAttribute: Sendable {}
