import SluiceCore
import SluiceRequestSerialization

/// `request.query-string`: AFNetworking's percent-escaping and query-string rules.
/// Vectors: `request/query-string.json`.
struct QueryStringSuite: ConformanceSuite {
    let name = "request.query-string"
    let summary = "AFNetworking's percent-escaping and query-string serialization"

    private struct Vectors: Decodable {
        struct Escape: Decodable {
            let id: String
            let input: String
            let output: String
        }
        struct Serialize: Decodable {
            let id: String
            let parameters: VectorParameters
            let query: String
        }
        let escape: [Escape]
        let serialize: [Serialize]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "request/query-string.json")
        var results: [CaseResult] = []
        for vector in vectors.escape {
            results.append(.expect(vector.id, QueryStringSerialization.percentEscape(vector.input), equals: vector.output))
        }
        for vector in vectors.serialize {
            results.append(
                .expect(vector.id, QueryStringSerialization.serialize(vector.parameters.value), equals: vector.query))
        }
        return results
    }
}
