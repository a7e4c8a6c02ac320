import Foundation
import SluiceCore
import SluiceResponseSerialization

/// `response.serializers`: AFNetworking's response-validation and JSON cases — acceptable statuses and
/// content types, empty bodies, null removal, error documents, error nesting — and the string
/// serializer's charsets. A case's `serializer` is `http`, `json` or `string`; its body is `body` (text),
/// or `bodyBase64` for bytes that are not UTF-8; a string case's `text` is the string it must give.
/// Vectors: `response/serializers.json`.
struct ResponseSerializerSuite: ConformanceSuite {
    let name = "response.serializers"
    let summary = "status and content-type validation, JSON decoding, null removal, errors with bodies (AFNetworking's cases)"
    let requirements: ConformanceRequirements = .vectors

    private struct Vectors: Decodable {
        struct Case: Decodable {
            let id: String
            let serializer: String
            let status: Int
            let contentType: String?
            let body: String
            let bodyBase64: String?
            let removesNulls: Bool?
            let expect: String
            let value: VectorParameters?
            let decoded: VectorParameters?
            let underlying: String?
            let text: String?
        }
        let cases: [Case]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "response/serializers.json")
        return try vectors.cases.map { vector in
            var body = Data(vector.body.utf8)
            if let base64 = vector.bodyBase64 {
                guard let bytes = Data(base64Encoded: base64) else {
                    throw ConformanceError("\(vector.id): bodyBase64 is not base64")
                }
                body = bytes
            }
            return check(vector, body: body)
        }
    }

    private func check(_ vector: Vectors.Case, body: Data) -> CaseResult {
        var headers = HTTPHeaders()
        if let type = vector.contentType { try? headers.set(name: "Content-Type", value: type) }
        let response = HTTPResponse(statusCode: vector.status, headers: headers, url: URL(string: "http://example.com/"))
        do {
            switch vector.serializer {
            case "http":
                _ = try HTTPResponseSerializer().serialize(request: nil, response: response, body: body)
                return .expect(vector.id, "ok", equals: vector.expect)
            case "string":
                let text = try StringResponseSerializer().serialize(request: nil, response: response, body: body)
                guard vector.expect == "ok" else { return .expect(vector.id, "ok", equals: vector.expect) }
                return .expect(vector.id, text, equals: vector.text ?? "")
            default:
                let serializer = JSONResponseSerializer(removesKeysWithNullValues: vector.removesNulls ?? false)
                let value = try serializer.serialize(request: nil, response: response, body: body)
                guard vector.expect == "ok" else { return .expect(vector.id, "ok", equals: vector.expect) }
                let expected = vector.value?.value
                let actual = value
                // A JSON null in the vector means "no object".
                let expectedOptional: Parameters? = (expected == nil || expected == .null) ? nil : expected
                return actual == expectedOptional
                    ? CaseResult(id: vector.id, passed: true)
                    : CaseResult(
                        id: vector.id, passed: false,
                        detail: "expected \(expectedOptional.map(\.description) ?? "none"), got \(actual.map(\.description) ?? "none")")
            }
        } catch {
            var outcome = error.code.rawValue
            if let underlying = vector.underlying {
                outcome += error.underlyingSluiceError?.code.rawValue == underlying ? "" : " (underlying \(error.underlyingSluiceError?.code.rawValue ?? "none"))"
            }
            if let decoded = vector.decoded?.value {
                let carried = (error.decodedBody as? Parameters?) ?? nil
                if carried != decoded { outcome += " (decoded body \(carried.map(\.description) ?? "none"))" }
            }
            if error.body != body { outcome += " (body not carried)" }
            return .expect(vector.id, outcome, equals: vector.expect)
        }
    }
}
