import Foundation
import SluiceCore
import SluicePropertyList
import Testing

@Suite("Property lists")
struct PropertyListTests {
    private let plistType = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-plist"])

    @Test("request bodies round-trip through the response serializer, XML and binary", arguments: [
        PropertyListSerialization.PropertyListFormat.xml, .binary,
    ])
    func roundTrip(format: PropertyListSerialization.PropertyListFormat) throws {
        let parameters: Parameters = [
            "name": "sluice", "count": 3, "ratio": 0.25, "on": true, "off": false, "blob": .data(Data([0, 1, 2])),
            "list": [1, "two", ["nested": true]],
        ]
        let request = try PropertyListRequestSerializer(format: format).serialize(
            HTTPRequest(url: URL(string: "https://example.com/items")!, method: .post), with: parameters)
        #expect(request.headers["Content-Type"] == "application/x-plist")
        guard case .bytes(let body) = request.body else {
            Issue.record("no body")
            return
        }
        #expect(PropertyListFormatDetector.format(of: body) == format)
        #expect(try PropertyListResponseSerializer().serialize(request: nil, response: plistType, body: body) == parameters)
    }

    @Test("AFNetworking: a plist served as application/x-plist decodes to a dictionary")
    func servedPlist() throws {
        let body = try PropertyListSerialization.data(fromPropertyList: ["key": "value"], format: .xml, options: 0)
        #expect(try PropertyListResponseSerializer().serialize(request: nil, response: plistType, body: body) == ["key": "value"])
    }

    @Test("AFNetworking: JSON bytes are an error")
    func jsonIsAnError() {
        let error = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer().serialize(request: nil, response: plistType, body: Data(#"{"key":"value"}"#.utf8))
        }
        #expect(error?.code == .propertyListInvalidData)
        #expect(error?.body == Data(#"{"key":"value"}"#.utf8))
    }

    @Test("AFNetworking: a 204 without data gives no object and no error")
    func noContent() throws {
        #expect(try PropertyListResponseSerializer().serialize(request: nil, response: HTTPResponse(statusCode: 204), body: nil) == nil)
    }

    @Test("values that are not property-list types are typed errors", arguments: [
        Parameters.null, .set([1]), .double(.nan), ["deep": [nil]],
    ])
    func invalidValues(value: Parameters) {
        let error = #expect(throws: SluiceError.self) {
            try PropertyListRequestSerializer().serialize(
                HTTPRequest(url: URL(string: "https://example.com")!, method: .put), with: ["v": value])
        }
        #expect(error?.code == .propertyListInvalidValue)
    }

    @Test("query methods need a query serializer for parameters")
    func queryMethods() throws {
        let request = HTTPRequest(url: URL(string: "https://example.com")!)
        let error = #expect(throws: SluiceError.self) { try PropertyListRequestSerializer().serialize(request, with: ["a": 1]) }
        #expect(error?.code == .propertyListParametersInURI)
        #expect(try PropertyListRequestSerializer().serialize(request, with: nil).body.isPresent == false)
    }

    @Test("Decodable and Encodable through PropertyListDecoder and PropertyListEncoder")
    func codable() throws {
        struct Item: Codable, Sendable, Equatable {
            let name: String
            let when: Date
        }
        let item = Item(name: "sluice", when: Date(timeIntervalSince1970: 1_000))
        let body = try PropertyListRequestSerializer.data(for: item, format: .binary)
        #expect(try PropertyListResponseSerializer.decodable(Item.self).serialize(request: nil, response: plistType, body: body) == item)
        // Dates become ISO 8601 strings in the Parameters view.
        #expect(try PropertyListResponseSerializer().serialize(request: nil, response: plistType, body: body)?["when"] == "1970-01-01T00:16:40Z")
    }

    @Test("the plugin registers for application/x-plist")
    func plugin() throws {
        let registry = try SerializerRegistry(plugins: [PropertyListPlugin()])
        #expect(registry.responseSerializer(for: MediaType("application/x-plist")!) is PropertyListResponseSerializer)
        #expect(registry.plugin(named: "plist")?.requestSerializer is PropertyListRequestSerializer)
    }
}
