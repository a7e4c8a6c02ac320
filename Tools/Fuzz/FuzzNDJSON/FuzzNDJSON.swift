import Foundation
import FuzzSupport
@_spi(Fuzzing) import SluiceCore
import SluiceNDJSONPlugin

/// The example plugin's C table (what `sluice_plugin_entry` returns in its library), registered as
/// `SerializerRegistry.load(pluginAt:)` registers it.
private let loaded: any ResponseSerializer = {
    let registry = SerializerRegistry()
    do throws(SluiceError) {
        try registry.register(pluginTable: sluicePluginEntry(), path: "SluiceNDJSONPlugin")
    } catch {
        fatalError("the NDJSON plugin's table was refused: \(error.message)")
    }
    return registry.responseSerializer(for: MediaType("application/x-ndjson")!)!
}()

private let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-ndjson"])

/// libFuzzer's entry point: newline-delimited JSON (`application/x-ndjson`, `application/jsonl`), the
/// JSON-lines format Sluice parses, through the example NDJSON plugin: its serializer called directly,
/// and the same plugin through its exported C table and the loaded-plugin wrapper, as a plugin loaded
/// from its library is used.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: the direct
/// serializer throws only `ndjson.invalidLine`, the loaded one only `registry.pluginFailed`; both
/// accept the same bodies and give the same values; the array has one element per line that is not
/// empty or blank.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    let direct = Result { () throws(SluiceError) in try NDJSONSerializer().serialize(request: nil, response: response, body: body) }
    let throughTable = Result { () throws(SluiceError) in try loaded.serialize(request: nil, response: response, body: body) as? Parameters }
    switch (direct, throughTable) {
    case (.success(let value), .success(let other)):
        guard value == other else { propertyFailed("directly \(String(describing: value)), through the table \(String(describing: other))") }
        guard let value else {
            guard body.isEmpty else { propertyFailed("no value for \(body.count) bytes") }
            return 0
        }
        guard case .array(let elements) = value else { propertyFailed("not an array: \(value)") }
        let lines = body.split(separator: UInt8(ascii: "\n")).count { line in
            !line.allSatisfy { $0 == 0x20 || $0 == 0x0D }
        }
        guard elements.count == lines else { propertyFailed("\(elements.count) values from \(lines) lines") }
    case (.failure(let error), .failure(let other)):
        guard error.code == "ndjson.invalidLine", other.code == .pluginFailed else {
            propertyFailed("threw \(error.code) and \(other.code)")
        }
    default:
        propertyFailed("the direct and loaded serializers disagree: \(direct) vs \(throughTable)")
    }
    return 0
}
