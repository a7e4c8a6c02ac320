/// The namespaces a start element declares, lent by libxml2 to an ``XMLBorrowedEventParser`` handler.
///
/// **Valid only during the handler call that received it.**
public struct XMLBorrowedNamespaces: RandomAccessCollection {
    /// libxml2's SAX2 namespace array: prefix and URI per declaration.
    let pairs: UnsafePointer<UnsafePointer<UInt8>?>?
    /// The number of declarations.
    public let count: Int

    @inline(__always)
    init(pairs: UnsafePointer<UnsafePointer<UInt8>?>?, count: Int) {
        self.pairs = pairs
        self.count = count
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// ``count``.
    public var endIndex: Int { count }

    /// The declaration at `index` (`0..<count`; traps outside).
    public subscript(index: Int) -> XMLBorrowedNamespace {
        precondition(index >= 0 && index < count, "namespace index out of range")
        let uri = pairs![2 * index + 1].map { XMLBytes(cString: $0) } ?? .empty
        return XMLBorrowedNamespace(prefix: XMLBytes.optional(pairs![2 * index]), uri: uri)
    }
}

@available(*, unavailable, message: "borrowed namespaces are valid only during the handler call")
extension XMLBorrowedNamespaces: Sendable {}
