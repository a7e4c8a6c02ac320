import Foundation
import SluiceCore
import SluicePropertyList
import SluiceResponseSerialization
import SluiceTestSupport
import SluiceTransport
import Testing

/// Property lists served by the real servers, decoded through the registry.
@Suite("Property lists from nginx and httpbin", .tags(.server), .needsServers)
struct PropertyListServerTests {
    private let registry: SerializerRegistry = {
        let registry = SerializerRegistry.makeDefault()
        try? registry.register(PropertyListPlugin())
        return registry
    }()

    /// Fetches `path` and decodes it with the serializer the registry picks for its Content-Type.
    private func fetch(_ server: ServerEnvironment.Server, _ path: String) async throws -> (HTTPResponse, Parameters?) {
        let result = try await SessionManager().data(for: TestEnvironment.request(server, path))
        let type = try #require(result.response.contentType)
        let serializer = try #require(registry.responseSerializer(for: type) as? PropertyListResponseSerializer, "\(type)")
        return (result.response, try serializer.serialize(request: nil, response: result.response, body: result.data))
    }

    @Test("AFNetworking: a plist served as application/x-plist decodes to a dictionary (XML and binary)",
          arguments: ["/plugins/sample.plist", "/plugins/binary.plist"])
    func served(path: String) async throws {
        let (response, value) = try await fetch(.http, path)
        #expect(response.headers["Content-Type"] == "application/x-plist")
        #expect(value?["name"] == "sluice")
        #expect(value?["count"] == 3)
        #expect(value?["ratio"] == 0.5)
        #expect(value?["enabled"] == true)
        #expect(value?["items"] == ["one", "two", ["nested": true]])
        #expect(value?["blob"] == .data(Data([0, 1, 2, 255])))
    }

    @Test("AFNetworking: a 204 with no data gives no object and no error (httpbin /status/204)")
    func noContent() async throws {
        let result = try await SessionManager().data(for: TestEnvironment.request(.httpbin, "/status/204"))
        #expect(result.response.statusCode == 204)
        #expect(try PropertyListResponseSerializer().serialize(request: nil, response: result.response, body: result.data) == nil)
    }

    @Test("JSON from httpbin is refused: its type is not application/x-plist, and its bytes are not a property list")
    func json() async throws {
        let result = try await SessionManager().data(for: TestEnvironment.request(.httpbin, "/json"))
        let error = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer().serialize(request: nil, response: result.response, body: result.data)
        }
        #expect(error?.code == .unacceptableContentType)
        let relabelled = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-plist"])
        let bytesError = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer().serialize(request: nil, response: relabelled, body: result.data)
        }
        #expect(bytesError?.code == .propertyListInvalidData)
    }
}
