/// A bundle of serializers and content codings registered under one name and version.
///
/// A plugin declares the response media types it handles (patterns such as `*/*+xml` allowed) and
/// makes a response serializer for each; it may also offer a request serializer and content codings.
/// Register it with ``SerializerRegistry/register(_:replacing:)``.
///
/// ```swift
/// struct CSVPlugin: SerializerPlugin {
///     let name = "csv"
///     let version = "1.0.0"
///     let responseMediaTypes = [MediaType("text/csv")!]
///     func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { CSVSerializer() }
/// }
/// ```
public protocol SerializerPlugin: Sendable {
    /// The plugin's unique name: letters, digits, `.`, `_` and `-`.
    var name: String { get }
    /// The plugin's version, `MAJOR.MINOR.PATCH` with an optional `-prerelease`.
    var version: String { get }
    /// The response media types the plugin decodes. Default none.
    var responseMediaTypes: [MediaType] { get }
    /// The content codings the plugin provides. Default none.
    var contentCodings: [any ContentCoding] { get }
    /// The request serializer the plugin provides, or `nil`. Default `nil`.
    var requestSerializer: (any RequestSerializer)? { get }

    /// A response serializer for a concrete media type that falls under ``responseMediaTypes``, or
    /// `nil` when the plugin does not decode it. Default `nil`.
    func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)?
}

extension SerializerPlugin {
    /// None.
    public var responseMediaTypes: [MediaType] { [] }
    /// None.
    public var contentCodings: [any ContentCoding] { [] }
    /// `nil`.
    public var requestSerializer: (any RequestSerializer)? { nil }
    /// `nil`.
    public func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { nil }
}
