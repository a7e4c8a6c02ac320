import SluiceCore
import SluiceGzip
import SluicePropertyList
import SluiceResponseSerialization
import SluiceXML

extension SerializerRegistry {
    /// A registry with the built-in serializers and the bundled plugins: gzip/deflate, XML and
    /// property lists.
    public static func bundled() -> SerializerRegistry {
        let registry = makeDefault()
        // Constant, valid plugins with distinct names cannot be refused.
        try? registry.register(GzipPlugin())
        try? registry.register(XMLPlugin())
        try? registry.register(PropertyListPlugin())
        return registry
    }
}
