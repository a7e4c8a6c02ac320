import Foundation
import Sluice

// Samples of docs/core.md, docs/request-serialization.md, docs/property-list.md and docs/plugins.md,
// compiled (not run: they talk to example hosts).
enum CoreSamples {
    static func values() throws {
        var request = HTTPRequest(url: "https://example.com/items", method: .post)   // a literal: no try
        try request.headers.set(name: "Content-Type", value: "application/json")
        request.body = .bytes(Data(#"{"name":"lamp"}"#.utf8))

        let parameters: Parameters = ["user": ["name": "Ada", "languages": ["swift", "c"]], "active": true]
        print(parameters["user"]?["name"]?.stringValue ?? "")

        struct Filter: Encodable {
            let query: String
            let limit: Int
        }
        let encoded = try Parameters(encoding: Filter(query: "lamp", limit: 10))
        print(encoded)

        let type = MediaType("application/vnd.api+json; charset=utf-8")
        print(type?.essence ?? "", type?.charset ?? "", type?.matches(MediaType("*/*+json")!) ?? false)
        _ = request
    }

    static func ordinaryDictionary() -> Parameters {
        var fields: [String: Parameters] = ["album": "Holidays"]
        fields["year"] = 2024
        let form = Parameters.dictionary(fields)   // ["album": "Holidays", "year": 2024]
        return form
    }

    final class CountingStream: BodyStream, @unchecked Sendable {
        private var next = 0
        let contentLength: Int64? = 1_000

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
            let count = min(buffer.count, 1_000 - next)
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: next + index) }
            next += count
            return count
        }
    }
}

enum RequestSerializationSamples {
    static func serializers() throws {
        let serializer = HTTPRequestSerializer()
        try serializer.setValue("application/json", forHTTPHeaderField: "Accept")
        serializer.setAuthorizationHeader(username: "ada", password: "lovelace")

        let search = try serializer.request(method: .get, urlString: "https://example.com/search",
                                            parameters: ["q": "café & crème", "tags": ["a", "b"], "exact": true])
        // https://example.com/search?exact=1&q=caf%C3%A9%20%26%20cr%C3%A8me&tags%5B%5D=a&tags%5B%5D=b

        let json = JSONRequestSerializer(writingOptions: [.sortedKeys])
        let create = try json.request(method: .post, urlString: "https://example.com/items",
                                      parameters: ["name": "lamp", "price": 12.5])
        if case .bytes(let body) = create.body { print(search.url, String(decoding: body, as: UTF8.self)) }
    }

    static func options() -> String {
        var options = QueryStringSerialization.Options()
        options.arrayEncoding = .indexInBrackets      // ids[0]=1&ids[1]=2
        options.boolEncoding = .literal               // true / false
        options.spaceEncoding = .plusReplaced         // a+b
        let query = QueryStringSerialization.serialize(["ids": [1, 2], "on": true, "q": "a b"], options: options)
        return query
    }
}

enum PropertyListSamples {
    static func roundTrip() async throws {
        let plist = PropertyListRequestSerializer(format: .binary)
        let request = try plist.serialize(HTTPRequest(url: URL(string: "https://example.com/settings")!, method: .put),
                                          with: ["volume": 7, "muted": false])

        struct Settings: Decodable, Sendable {
            let volume: Int
            let muted: Bool
        }
        let session = SessionManager()
        let response = try await session.data(for: request)
        let settings = try PropertyListResponseSerializer.decodable(Settings.self)
            .serialize(request: request, response: response.response, body: response.data)
        print(settings.volume)
    }
}

enum PluginSamples {
    /// A stand-in of the same name for the guide's CSV plugin, which `Tools/testenv/check-walkthrough.sh`
    /// builds and tests as the guide's own package.
    struct CSVSerializerPlugin: SerializerPlugin {
        let name = "csv"
        let version = "1.0.0"
        var responseMediaTypes: [MediaType] { [MediaType("text/csv")!] }
    }

    static func register() throws -> HTTPSessionManager {
        let registry = SerializerRegistry.bundled()
        try registry.register(CSVSerializerPlugin())
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com"), registry: registry)
        return manager
    }

    static func load(registry: SerializerRegistry) throws {
        let loaded = try registry.load(pluginAt: "/usr/lib/myapp/libSluiceNDJSONPlugin.so")
        print(loaded.name, loaded.version, loaded.responseMediaTypes)
    }
}

// Samples of docs/brotli-and-zstd.md.
enum CompressionSamples {
    static func upload() async throws {
        var configuration = SessionConfiguration()
        configuration.registry = try SerializerRegistry(plugins: [BrotliPlugin(), ZstdPlugin(level: 6)])
        let session = SessionManager(configuration: configuration)

        var upload = HTTPRequest(url: URL(string: "https://example.com/logs")!, method: .post)
        upload.contentEncoding = "zstd"
        let response = try await session.upload(for: upload, from: .file(path: "/var/log/app.log"))
        print(response.response.statusCode, BrotliPlugin.libraryVersion, ZstdPlugin.libraryVersion)
    }
}
