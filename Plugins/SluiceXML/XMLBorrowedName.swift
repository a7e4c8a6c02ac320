/// An element or attribute name that libxml2 lends to an ``XMLBorrowedEventParser`` handler: views of
/// its local name, prefix and namespace URI (each measured only when asked for), and ``name``, a copy.
///
/// **Valid only during the handler call that received it.** Compare without allocating with
/// `name.localName == "item"`.
public struct XMLBorrowedName {
    let local: UnsafePointer<UInt8>?
    let prefixPointer: UnsafePointer<UInt8>?
    let uriPointer: UnsafePointer<UInt8>?

    @inline(__always)
    init(local: UnsafePointer<UInt8>?, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?) {
        self.local = local
        prefixPointer = prefix
        uriPointer = uri
    }

    /// The local part (`item` in `atom:item`).
    public var localName: XMLBytes {
        local.map { XMLBytes(cString: $0) } ?? .empty
    }

    /// The prefix as written, or `nil` for an unprefixed name.
    public var prefix: XMLBytes? { XMLBytes.optional(prefixPointer) }

    /// The namespace URI, or `nil` for no namespace.
    public var namespaceURI: XMLBytes? { XMLBytes.optional(uriPointer) }

    /// A copy as an ``XMLName`` (the same value ``XMLEventParser`` delivers).
    public var name: XMLName {
        XMLName(localName.string, prefix: prefix?.string, namespaceURI: namespaceURI?.string)
    }
}

@available(*, unavailable, message: "borrowed names are valid only during the handler call")
extension XMLBorrowedName: Sendable {}
