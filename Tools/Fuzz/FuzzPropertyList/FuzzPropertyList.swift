import Foundation
import SluiceCore
import SluicePropertyList

/// A model with optional fields of every property-list type, for the Decodable path.
private struct Record: Decodable, Sendable {
    let name: String?
    let count: Int?
    let ratio: Double?
    let enabled: Bool?
    let when: Date?
    let blob: Data?
    let items: [String]?
    let nested: [String: Int]?
}

private let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-plist"])

/// libFuzzer's entry point: one body through `serialize` and both Decodable serializers.
///
/// Besides crashes, it stops on a broken contract: `serialize` may only throw
/// `plist.invalidData`, the Decodable serializers only `decodingFailed` or `emptyResponse`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    do {
        _ = try PropertyListResponseSerializer().serialize(request: nil, response: response, body: body)
    } catch {
        if error.code != .propertyListInvalidData { fatalError("serialize threw \(error.code): \(error.message)") }
    }
    for decode in [decodeParameters, decodeRecord] {
        do {
            try decode(body)
        } catch {
            if error.code != .decodingFailed && error.code != .emptyResponse {
                fatalError("decodable threw \(error.code): \(error.message)")
            }
        }
    }
    return 0
}

private func decodeParameters(_ body: Data) throws(SluiceError) {
    _ = try PropertyListResponseSerializer.decodable(Parameters.self).serialize(request: nil, response: response, body: body)
}

private func decodeRecord(_ body: Data) throws(SluiceError) {
    _ = try PropertyListResponseSerializer.decodable(Record.self).serialize(request: nil, response: response, body: body)
}
