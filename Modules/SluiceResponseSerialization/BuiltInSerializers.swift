import SluiceCore

/// The serializers Sluice has built in, as a plugin: JSON (`application/json`, `text/json`,
/// `text/javascript`, `*/*+json`), images (AFNetworking's image types and WebP), and text (`text/*`).
public struct BuiltInSerializers: SerializerPlugin {
    /// `sluice.builtin`.
    public let name = "sluice.builtin"
    /// `1.0.0`.
    public let version = "1.0.0"

    /// Creates the plugin.
    public init() {}

    /// The JSON, image and text types.
    public var responseMediaTypes: [MediaType] {
        JSONResponseSerializer.defaultContentTypes + ImageResponseSerializer.defaultContentTypes + [MediaType("text/*")!]
    }

    /// A JSON, image or string serializer for `mediaType`.
    public func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? {
        if JSONResponseSerializer.defaultContentTypes.contains(where: { $0.matches(mediaType) }) { return JSONResponseSerializer() }
        if ImageResponseSerializer.defaultContentTypes.contains(where: { $0.matches(mediaType) }) { return ImageResponseSerializer() }
        if mediaType.type == "text" { return StringResponseSerializer() }
        return nil
    }
}

extension SerializerRegistry {
    /// A registry holding ``BuiltInSerializers``. The umbrella's `SerializerRegistry.bundled()` adds the
    /// bundled plugins (gzip, XML, property lists).
    public static func makeDefault() -> SerializerRegistry {
        let registry = SerializerRegistry()
        // A constant, valid plugin in an empty registry cannot be refused.
        try? registry.register(BuiltInSerializers())
        return registry
    }
}
