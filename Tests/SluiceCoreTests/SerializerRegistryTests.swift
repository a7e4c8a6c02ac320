import Foundation
import SluiceCore
import Testing

@Suite("SerializerRegistry")
struct SerializerRegistryTests {
    struct TextSerializer: ResponseSerializer {
        let tag: String
        func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> String {
            "\(tag):\(String(decoding: body ?? Data(), as: UTF8.self))"
        }
    }

    struct Plugin: SerializerPlugin {
        var name: String
        var version = "1.0.0"
        var responseMediaTypes: [MediaType]
        var contentCodings: [any ContentCoding] = []
        func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? { TextSerializer(tag: name) }
    }

    @Test("application/problem+json reaches the JSON plugin through its suffix")
    func suffixFallback() throws {
        let registry = try SerializerRegistry(plugins: [Plugin(name: "json", responseMediaTypes: [.json])])
        let type = try MediaType(parsing: "application/problem+json; charset=utf-8")
        let match = try #require(registry.responseMatch(for: type))
        #expect(match.plugin.name == "json")
        #expect(match.declaredType == .json)
        let output = try match.serializer.serialize(
            request: nil, response: HTTPResponse(statusCode: 400), body: Data("{}".utf8))
        #expect(output as? String == "json:{}")
    }

    @Test("wildcards and precedence")
    func precedence() throws {
        let registry = try SerializerRegistry(plugins: [
            Plugin(name: "any", responseMediaTypes: [.any]),
            Plugin(name: "text", responseMediaTypes: [MediaType("text/*")!]),
            Plugin(name: "csv", responseMediaTypes: [MediaType("text/csv")!]),
        ])
        #expect(registry.responseMatch(for: MediaType("text/csv")!)?.plugin.name == "csv")
        #expect(registry.responseMatch(for: MediaType("text/plain")!)?.plugin.name == "text")
        #expect(registry.responseMatch(for: MediaType("image/png")!)?.plugin.name == "any")
    }

    @Test("duplicate names are refused unless replacing, which keeps one")
    func duplicates() throws {
        let registry = SerializerRegistry()
        try registry.register(Plugin(name: "x", responseMediaTypes: [.json]))
        let error = #expect(throws: SluiceError.self) {
            try registry.register(Plugin(name: "x", version: "2.0.0", responseMediaTypes: [.xml]))
        }
        #expect(error?.code == .pluginDuplicate)
        #expect(registry.plugin(named: "x")?.version == "1.0.0")
        try registry.register(Plugin(name: "x", version: "2.0.0", responseMediaTypes: [.xml]), replacing: true)
        #expect(registry.plugins.count == 1)
        #expect(registry.plugin(named: "x")?.version == "2.0.0")
        #expect(registry.unregister(named: "x"))
        #expect(!registry.unregister(named: "x"))
    }

    @Test("content codings by name and alias, Accept-Encoding, listing")
    func codings() throws {
        struct Named: ContentCoding {
            let name: String
            var aliases: [String] = []
            func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder { IdentityCoding().makeDecoder(limits: limits) }
        }
        let registry = try SerializerRegistry(plugins: [
            Plugin(name: "codings", responseMediaTypes: [], contentCodings: [Named(name: "gzip", aliases: ["x-gzip"]), Named(name: "deflate"), IdentityCoding()])
        ])
        #expect(registry.contentCoding(named: "X-GZIP")?.name == "gzip")
        #expect(registry.contentCoding(named: "br") == nil)
        #expect(registry.acceptEncoding == "gzip, deflate")
        #expect(registry.listing == [PluginSummary(name: "codings", version: "1.0.0", responseMediaTypes: [], contentCodings: ["gzip", "deflate", "identity"], providesRequestSerializer: false)])
    }

    @Test("concurrent registration and lookup stay consistent")
    func concurrency() async throws {
        let registry = SerializerRegistry()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try? registry.register(Plugin(name: "p\(index)", responseMediaTypes: [MediaType("application/x-\(index)")!]))
                    _ = registry.responseSerializer(for: .json)
                }
            }
        }
        #expect(registry.plugins.count == 200)
        #expect(registry.responseMatch(for: MediaType("application/x-150")!)?.plugin.name == "p150")
    }
}
