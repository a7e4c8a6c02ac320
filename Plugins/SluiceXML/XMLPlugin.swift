import SluiceCore

/// The XML plugin: an ``XMLResponseSerializer`` for `application/xml`, `text/xml` and any `+xml` type.
///
/// ```swift
/// let registry = SerializerRegistry.makeDefault()
/// try registry.register(XMLPlugin())
/// registry.responseSerializer(for: MediaType("application/atom+xml")!)   // an XMLResponseSerializer
/// ```
public struct XMLPlugin: SerializerPlugin {
    /// `xml`.
    public let name = "xml"
    /// `1.0.0`.
    public let version = "1.0.0"

    /// Creates the plugin.
    public init() {}

    /// `application/xml`, `text/xml` and `*/*+xml`.
    public var responseMediaTypes: [MediaType] { XMLResponseSerializer.defaultContentTypes }

    /// An ``XMLResponseSerializer``.
    public func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { XMLResponseSerializer() }
}
