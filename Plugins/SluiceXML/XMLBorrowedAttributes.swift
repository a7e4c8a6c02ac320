/// The attributes of a start element that libxml2 lends to an ``XMLBorrowedEventParser`` handler, in
/// document order (namespace declarations excluded; they are in ``XMLBorrowedNamespaces``).
///
/// **Valid only during the handler call that received it.** Reading an attribute makes no copy.
public struct XMLBorrowedAttributes: RandomAccessCollection {
    /// libxml2's SAX2 attribute array: five pointers per attribute (local name, prefix, URI, value
    /// start, value end).
    let fields: UnsafePointer<UnsafePointer<UInt8>?>?
    /// The values, entity references already replaced.
    let values: UnsafePointer<UnsafeBufferPointer<UInt8>>?
    /// The number of attributes.
    public let count: Int

    @inline(__always)
    init(fields: UnsafePointer<UnsafePointer<UInt8>?>?, values: UnsafePointer<UnsafeBufferPointer<UInt8>>?, count: Int) {
        self.fields = fields
        self.values = values
        self.count = count
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// ``count``.
    public var endIndex: Int { count }

    /// The attribute at `index` (`0..<count`; traps outside).
    public subscript(index: Int) -> XMLBorrowedAttribute {
        precondition(index >= 0 && index < count, "attribute index out of range")
        let attribute = fields! + 5 * index
        return XMLBorrowedAttribute(
            name: XMLBorrowedName(local: attribute[0], prefix: attribute[1], uri: attribute[2]), value: XMLBytes(values![index]))
    }

    /// The value of the first attribute whose local name is `localName` (in `namespaceURI` when it is
    /// not `nil`), without allocating; `nil` when there is none.
    public func value(of localName: String, namespaceURI: String? = nil) -> XMLBytes? {
        for attribute in self where attribute.name.localName == localName {
            guard let namespaceURI else { return attribute.value }
            if let uri = attribute.name.namespaceURI, uri == namespaceURI { return attribute.value }
        }
        return nil
    }
}

@available(*, unavailable, message: "borrowed attributes are valid only during the handler call")
extension XMLBorrowedAttributes: Sendable {}
