import Foundation
import SluiceCore
import SluiceResponseSerialization
import SluiceTestSupport
import Testing

@Suite("Default registry and decoding through plugins")
struct RegistryDecodingTests {
    @Test("the default registry answers JSON, +json, images and text with the built-in serializers")
    func defaults() throws {
        let registry = SerializerRegistry.makeDefault()
        #expect(registry.responseSerializer(for: MediaType("application/problem+json")!) is JSONResponseSerializer)
        #expect(registry.responseSerializer(for: .json) is JSONResponseSerializer)
        #expect(registry.responseSerializer(for: MediaType("image/png")!) is ImageResponseSerializer)
        #expect(registry.responseSerializer(for: MediaType("text/csv")!) is StringResponseSerializer)
        #expect(registry.responseSerializer(for: MediaType("application/octet-stream")!) == nil)
    }

    struct Event: Decodable, Sendable, Equatable {
        let id: Int
    }

    @Test("Decodable through the registry: a loaded plugin's media type, and JSON")
    func throughPlugin() throws {
        let library = try TestEnvironment.examplePluginPath()
        let registry = SerializerRegistry.makeDefault()
        try registry.load(pluginAt: library)
        let serializer = DecodableResponseSerializer<[Event]>(registry: registry)

        let ndjson = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-ndjson"])
        #expect(try serializer.serialize(request: nil, response: ndjson, body: Data("{\"id\":1}\n{\"id\":2}\n".utf8)) == [Event(id: 1), Event(id: 2)])

        let json = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"])
        #expect(try serializer.serialize(request: nil, response: json, body: Data("[{\"id\":3}]".utf8)) == [Event(id: 3)])

        let csv = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-unknown"])
        let error = #expect(throws: SluiceError.self) {
            try serializer.serialize(request: nil, response: csv, body: Data("id\n1".utf8))
        }
        #expect(error?.code == .unacceptableContentType)
    }
}

@Suite("Image headers")
struct ImageHeaderTests {
    private func info(_ bytes: [UInt8], _ type: String) throws -> ImageInfo? {
        try ImageResponseSerializer().serialize(
            request: nil, response: HTTPResponse(statusCode: 200, headers: ["Content-Type": type]), body: Data(bytes))
    }

    @Test("GIF, BMP, ICO and WebP (lossless) headers give format and size")
    func headers() throws {
        let gif = Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00] + [UInt8](repeating: 0, count: 8)
        let gifInfo = try #require(try info(gif, "image/gif"))
        #expect(gifInfo.format == .gif && gifInfo.width == 320 && gifInfo.height == 240)
        var bmp = [UInt8](repeating: 0, count: 30)
        bmp[0] = 0x42; bmp[1] = 0x4D
        bmp[14] = 40  // BITMAPINFOHEADER
        bmp[18] = 0x80; bmp[19] = 0x02  // width 640
        bmp[22] = 0x20; bmp[23] = 0xFE; bmp[24] = 0xFF; bmp[25] = 0xFF  // height -480: top-down
        #expect(try info(bmp, "image/bmp")?.width == 640)
        #expect(try info(bmp, "image/bmp")?.height == 480)
        let ico: [UInt8] = [0, 0, 1, 0, 1, 0, 0, 48, 0, 0]
        #expect(try info(ico, "image/x-icon")?.width == 256)
        #expect(try info(ico, "image/x-icon")?.height == 48)
        var webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8L".utf8) + [0, 0, 0, 0, 0x2F]
        // 14-bit width-1 = 99, height-1 = 49.
        let bits = 99 | (49 << 14)
        webp += [UInt8(bits & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8((bits >> 16) & 0xFF), UInt8((bits >> 24) & 0xFF)]
        let lossless = try #require(try info(webp, "image/webp"))
        #expect(lossless.width == 100 && lossless.height == 50)
    }

    @Test("truncated or unknown images are typed errors")
    func unreadable() {
        #expect((#expect(throws: SluiceError.self) { try info([0xFF, 0xD8, 0xFF], "image/jpeg") })?.code == .invalidImage)
        #expect((#expect(throws: SluiceError.self) { try info(Array("hello".utf8), "image/png") })?.code == .invalidImage)
    }
}
