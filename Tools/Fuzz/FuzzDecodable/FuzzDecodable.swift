import Foundation
import FuzzSupport
import SluiceCore
import SluicePropertyList
import SluiceResponseSerialization
import SluiceXML

/// A model with optional fields of the kinds JSON and the plugins produce.
private struct Record: Decodable, Sendable {
    let id: Int?
    let name: String?
    let score: Double?
    let active: Bool?
    let tags: [String]?
    let children: [Record]?
    let attributes: [String: String]?
}

/// The default registry (JSON, images, text) with the XML and property-list plugins.
private let registry: SerializerRegistry = {
    let registry = SerializerRegistry.makeDefault()
    do throws(SluiceError) {
        try registry.register(XMLPlugin())
        try registry.register(PropertyListPlugin())
    } catch {
        fatalError("cannot register the plugins: \(error.message)")
    }
    return registry
}()

private let contentTypes = [
    "application/json", "application/problem+json; charset=utf-8", "text/json", "application/xml", "text/xml",
    "application/atom+xml", "application/x-plist", "application/x-bplist", "image/png", "image/gif", "text/plain",
    "text/csv; charset=latin1", "application/octet-stream", "",
]

/// The codes `DecodableResponseSerializer(registry:)` and the serializers it reaches may throw.
private let expected: Set<SluiceError.Code> = [
    .unacceptableContentType, .decodingFailed, .emptyResponse, .invalidJSON, .invalidImage, .xmlMalformed,
    .xmlEntityRefused, .propertyListInvalidData,
]

/// libFuzzer's entry point: Decodable through the registry. The first byte picks a `Content-Type` (one
/// of a list, or when its high bit is set, a string from the input); the rest is the body, decoded as
/// three `Decodable` types by `DecodableResponseSerializer(registry:)`, which routes it through the
/// serializer the registry holds for that type and re-encodes its output as JSON.
///
/// A failure is a crash, a sanitizer report, a timeout, or a broken property: only the codes the
/// serializer and the serializers it reaches document (`response.*`, `xml.*`, `plist.invalidData`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let type = choice & 0x80 == 0 ? contentTypes[Int(choice) % contentTypes.count] : input.string(upTo: 48)
    var headers = HTTPHeaders()
    if !type.isEmpty { try? headers.set(name: "Content-Type", value: type) }
    let response = HTTPResponse(statusCode: 200, headers: headers)
    let body = Data(input.rest())
    check { () throws(SluiceError) in _ = try DecodableResponseSerializer<Record>(registry: registry).serialize(request: nil, response: response, body: body) }
    check { () throws(SluiceError) in _ = try DecodableResponseSerializer<Parameters>(registry: registry).serialize(request: nil, response: response, body: body) }
    check { () throws(SluiceError) in _ = try DecodableResponseSerializer<[String: Parameters]>(registry: registry).serialize(request: nil, response: response, body: body) }
    return 0
}

private func check(_ body: () throws(SluiceError) -> Void) {
    do throws(SluiceError) {
        try body()
    } catch {
        guard expected.contains(error.code) else { propertyFailed("threw \(error.code): \(error.message)") }
    }
}
