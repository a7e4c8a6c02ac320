import SluiceCore
import SluiceRequestSerialization

/// `request.query-string`: AFNetworking's percent-escaping and query-string rules, and each encoding
/// option. Vectors: `request/query-string.json`.
struct QueryStringSuite: ConformanceSuite {
    let name = "request.query-string"
    let summary = "AFNetworking's percent-escaping and query strings, and every encoding option"
    let requirements: ConformanceRequirements = .vectors

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
        struct Optioned: Decodable {
            let id: String
            let options: [String: String]
            let parameters: VectorParameters
            let query: String
        }
        let escape: [Escape]
        let serialize: [Serialize]
        let options: [Optioned]
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
        for vector in vectors.options {
            do {
                let options = try Self.options(vector.options)
                results.append(.expect(
                    vector.id, QueryStringSerialization.serialize(vector.parameters.value, options: options),
                    equals: vector.query))
            } catch {
                results.append(CaseResult(id: vector.id, passed: false, detail: "\(error)"))
            }
        }
        return results
    }

    /// Options named in a vector: `{"arrayEncoding": "noBrackets", ...}`.
    static func options(_ names: [String: String]) throws -> QueryStringSerialization.Options {
        var options = QueryStringSerialization.Options()
        for (key, value) in names {
            switch (key, value) {
            case ("arrayEncoding", "brackets"): options.arrayEncoding = .brackets
            case ("arrayEncoding", "noBrackets"): options.arrayEncoding = .noBrackets
            case ("arrayEncoding", "indexInBrackets"): options.arrayEncoding = .indexInBrackets
            case ("boolEncoding", "numeric"): options.boolEncoding = .numeric
            case ("boolEncoding", "literal"): options.boolEncoding = .literal
            case ("spaceEncoding", "percentEscaped"): options.spaceEncoding = .percentEscaped
            case ("spaceEncoding", "plusReplaced"): options.spaceEncoding = .plusReplaced
            case ("nilEncoding", "bareKey"): options.nilEncoding = .bareKey
            case ("nilEncoding", "dropKey"): options.nilEncoding = .dropKey
            case ("nilEncoding", "dropValue"): options.nilEncoding = .dropValue
            case ("nilEncoding", "null"): options.nilEncoding = .null
            case ("keyOrdering", "alphabetized"): options.keyOrdering = .alphabetized
            case ("keyOrdering", "insertionOrder"): options.keyOrdering = .insertionOrder
            case ("keyEncoding", "useDefaultKeys"): options.keyEncoding = .useDefaultKeys
            case ("keyEncoding", "convertToSnakeCase"): options.keyEncoding = .convertToSnakeCase
            case ("keyEncoding", "convertToKebabCase"): options.keyEncoding = .convertToKebabCase
            default: throw ConformanceError("unknown option \(key)=\(value)")
            }
        }
        return options
    }
}
