import Foundation
import FuzzSupport
import SluiceCore
import SluiceResponseSerialization

private let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"])
private let failed = HTTPResponse(statusCode: 422, headers: ["Content-Type": "application/problem+json"])

/// libFuzzer's entry point: a response body through `JSONResponseSerializer`, as is and with null
/// removal (`removesKeysWithNullValues`), and with a failing status (the body is still decoded for the
/// error).
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: the
/// serializer throws only `response.invalidJSON` (or, for the failing status,
/// `response.unacceptableStatusCode` carrying the decoded body); the two serializers accept the same
/// bodies; with null removal no array or dictionary holds a null, and removing nulls from the plain
/// result gives the same tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    let plain = result(JSONResponseSerializer(), response, body)
    let removing = result(JSONResponseSerializer(removesKeysWithNullValues: true), response, body)
    switch (plain, removing) {
    case (.success(let value), .success(let cleaned)):
        if let cleaned, containsNull(cleaned, top: true) { propertyFailed("a null survived removal in \(cleaned)") }
        guard cleaned == value.map(removingNulls) else { propertyFailed("removal gave \(String(describing: cleaned))") }
    case (.failure(let error), .failure(let other)):
        guard error.code == .invalidJSON, other.code == .invalidJSON else {
            propertyFailed("threw \(error.code) and \(other.code)")
        }
    default:
        propertyFailed("one serializer accepted the body, the other did not")
    }
    // A failing status: the body is decoded for the error, and the error is the status one.
    switch result(JSONResponseSerializer(), failed, body) {
    case .success:
        propertyFailed("a 422 was accepted")
    case .failure(let error):
        switch (plain, error.code) {
        case (.success(let value), .unacceptableStatusCode):
            guard (error.decodedBody as? Parameters) == value else { propertyFailed("decodedBody differs from the value") }
        case (.failure, .invalidJSON):
            guard error.underlying is SluiceError else { propertyFailed("the status error is not underneath") }
        default:
            propertyFailed("a 422 threw \(error.code)")
        }
    }
    return 0
}

private func result(_ serializer: JSONResponseSerializer, _ response: HTTPResponse, _ body: Data) -> Result<Parameters?, SluiceError> {
    Result { () throws(SluiceError) in try serializer.serialize(request: nil, response: response, body: body) }
}

private func containsNull(_ value: Parameters, top: Bool) -> Bool {
    switch value {
    case .null: return !top
    case .array(let values): return values.contains { containsNull($0, top: false) }
    case .dictionary(let values): return values.values.contains { containsNull($0, top: false) }
    default: return false
    }
}

/// The documented rule, written independently: null dictionary values and array elements go, recursively.
private func removingNulls(_ value: Parameters) -> Parameters {
    switch value {
    case .array(let values):
        return .array(values.compactMap { if case .null = $0 { nil } else { removingNulls($0) } })
    case .dictionary(var values):
        for key in values.keys {
            if case .null = values[key]! { values.removeValue(forKey: key) } else { values[key] = removingNulls(values[key]!) }
        }
        return .dictionary(values)
    default:
        return value
    }
}
