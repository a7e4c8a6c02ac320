import SluiceCore

/// `core.headers`: which header names and values are accepted, the error code of each refusal, and
/// canonical names. Vectors: `core/headers.json`.
struct HeaderSuite: ConformanceSuite {
    let name = "core.headers"
    let summary = "header names and values: injection refused, canonical names"
    let requirements: ConformanceRequirements = .vectors

    private struct Vectors: Decodable {
        struct Field: Decodable {
            let id: String
            let name: String
            let value: String
            let error: String?
        }
        struct Canonical: Decodable {
            let name: String
            let canonical: String
        }
        let fields: [Field]
        let canonical: [Canonical]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "core/headers.json")
        var results: [CaseResult] = []
        for field in vectors.fields {
            var headers = HTTPHeaders()
            let outcome: String
            do {
                try headers.add(name: field.name, value: field.value)
                outcome = "accepted"
            } catch {
                outcome = error.code.rawValue
            }
            results.append(.expect(field.id, outcome, equals: field.error ?? "accepted"))
        }
        for vector in vectors.canonical {
            results.append(
                .expect("canonical \(vector.name)", HTTPHeaders.canonicalName(vector.name), equals: vector.canonical))
        }
        return results
    }
}
