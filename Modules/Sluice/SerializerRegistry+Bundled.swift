import SluiceBrotli
import SluiceCore
import SluiceGzip
import SluicePropertyList
import SluiceResponseSerialization
import SluiceXML
import SluiceZstd

extension SerializerRegistry {
    /// A registry with the built-in serializers and the bundled plugins: gzip/deflate, brotli, Zstandard,
    /// XML and property lists (`Accept-Encoding: gzip, deflate, br, zstd`).
    public static func bundled() -> SerializerRegistry {
        let registry = makeDefault()
        // Constant, valid plugins with distinct names cannot be refused.
        try? registry.register(GzipPlugin())
        try? registry.register(BrotliPlugin())
        try? registry.register(ZstdPlugin())
        try? registry.register(XMLPlugin())
        try? registry.register(PropertyListPlugin())
        return registry
    }
}
