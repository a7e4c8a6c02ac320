import SluiceCore

/// The property-list plugin: a response serializer for `application/x-plist` (XML and binary) and a
/// request serializer writing XML property lists.
public struct PropertyListPlugin: SerializerPlugin {
    /// `plist`.
    public let name = "plist"
    /// `1.0.0`.
    public let version = "1.0.0"

    /// Creates the plugin.
    public init() {}

    /// `application/x-plist`.
    public var responseMediaTypes: [MediaType] { [MediaType("application/x-plist")!] }

    /// An XML ``PropertyListRequestSerializer``.
    public var requestSerializer: (any RequestSerializer)? { PropertyListRequestSerializer() }

    /// A ``PropertyListResponseSerializer``.
    public func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { PropertyListResponseSerializer() }
}
