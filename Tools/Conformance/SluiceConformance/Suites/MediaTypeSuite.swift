import SluiceCore

/// `core.media-types`: parsing `Content-Type` values and matching types against patterns.
/// Vectors: `core/media-types.json`.
struct MediaTypeSuite: ConformanceSuite {
    let name = "core.media-types"
    let summary = "media type parsing (parameters, quoting, suffixes) and wildcard matching"
    let requirements: ConformanceRequirements = .vectors

    private struct Vectors: Decodable {
        struct Parse: Decodable {
            let input: String
            /// `nil` when the input must be refused.
            let essence: String?
            let suffix: String?
            let charset: String?
        }
        struct Match: Decodable {
            let pattern: String
            let candidate: String
            let matches: Bool
        }
        let parse: [Parse]
        let match: [Match]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "core/media-types.json")
        var results: [CaseResult] = []
        for vector in vectors.parse {
            let id = "parse \(vector.input.debugDescription)"
            let actual: String
            do {
                let type = try MediaType(parsing: vector.input)
                actual = "\(type.essence) suffix=\(type.suffix ?? "-") charset=\(type.charset ?? "-")"
            } catch {
                actual = error.code.rawValue
            }
            let expected = vector.essence.map { "\($0) suffix=\(vector.suffix ?? "-") charset=\(vector.charset ?? "-")" }
                ?? SluiceError.Code.invalidMediaType.rawValue
            results.append(.expect(id, actual, equals: expected))
        }
        for vector in vectors.match {
            let id = "\(vector.pattern) matches \(vector.candidate)"
            guard let pattern = MediaType(vector.pattern), let candidate = MediaType(vector.candidate) else {
                results.append(CaseResult(id: id, passed: false, detail: "vector does not parse"))
                continue
            }
            results.append(.expect(id, pattern.matches(candidate), equals: vector.matches))
        }
        return results
    }
}
