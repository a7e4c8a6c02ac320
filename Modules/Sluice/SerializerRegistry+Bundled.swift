import SluiceCore
import SluiceGzip
import SluicePropertyList
import SluiceResponseSerialization

extension SerializerRegistry {
    /// A registry with the built-in serializers and the bundled plugins that exist: gzip/deflate and
    /// property lists.
    public static func bundled() -> SerializerRegistry {
        let registry = makeDefault()
        // Constant, valid plugins with distinct names cannot be refused.
        try? registry.register(GzipPlugin())
        try? registry.register(PropertyListPlugin())
        return registry
    }
}
