import Foundation
import SluiceCore
import SluiceRequestSerialization

/// `request.http-serializer` and `request.json-serializer`: the request each serializer builds from a
/// method, URL and parameters — its URL, body and Content-Type — or the error it refuses with.
/// Vectors: `request/http-serializer.json`, `request/json-serializer.json`.
struct RequestSerializerSuite: ConformanceSuite {
    /// Which serializer the suite checks.
    enum Kind: Sendable {
        case http, json
    }

    let kind: Kind
    let requirements: ConformanceRequirements = .vectors
    var name: String { kind == .http ? "request.http-serializer" : "request.json-serializer" }
    var summary: String {
        kind == .http
            ? "HTTP request serializer: query or form body, Content-Type, URL resolution (AFNetworking's cases)"
            : "JSON request serializer: body, writing options, values JSON cannot hold (AFNetworking's cases)"
    }

    struct Vectors: Decodable {
        struct Case: Decodable {
            struct Expect: Decodable {
                let url: String?
                let body: String?
                let contentType: String?
                let error: String?
            }
            let id: String
            let method: String
            let url: String
            let base: String?
            let headers: [String: String]?
            let options: [String]?
            let parameters: VectorParameters?
            let expect: Expect
        }
        let cases: [Case]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let file = kind == .http ? "request/http-serializer.json" : "request/json-serializer.json"
        let vectors = try context.requireVectors().load(Vectors.self, from: file)
        return vectors.cases.map(check)
    }

    private func check(_ vector: Vectors.Case) -> CaseResult {
        let http = HTTPRequestSerializer(environment: ["LANG": "en_US.UTF-8"], applicationName: "conformance", applicationVersion: "1")
        let json = JSONRequestSerializer(http: http, writingOptions: Self.writingOptions(vector.options ?? []))
        let serializer: any RequestSerializer = kind == .http ? http : json
        let outcome: String
        do {
            var request = try http.makeRequest(
                method: HTTPMethod(rawValue: vector.method), urlString: vector.url,
                relativeTo: vector.base.flatMap(URL.init(string:)))
            for (name, value) in vector.headers ?? [:] { try request.headers.set(name: name, value: value) }
            request = try serializer.serialize(request, with: vector.parameters?.value)
            outcome = Self.describe(url: request.url.absoluteString, body: Self.bodyText(request.body),
                                    contentType: request.headers["Content-Type"])
        } catch {
            outcome = "error \(error.code)"
        }
        let expected = vector.expect.error.map { "error \($0)" }
            ?? Self.describe(url: vector.expect.url ?? "", body: vector.expect.body, contentType: vector.expect.contentType)
        return .expect(vector.id, outcome, equals: expected)
    }

    private static func describe(url: String, body: String?, contentType: String?) -> String {
        "url \(url) | body \(body.map { $0.debugDescription } ?? "none") | content-type \(contentType ?? "none")"
    }

    private static func bodyText(_ body: HTTPBody) -> String? {
        switch body {
        case .none: nil
        case .bytes(let data): String(decoding: data, as: UTF8.self)
        default: "<\(body)>"
        }
    }

    private static func writingOptions(_ names: [String]) -> JSONWritingOptions {
        var options: JSONWritingOptions = []
        if names.contains("sortedKeys") { options.insert(.sortedKeys) }
        if names.contains("prettyPrinted") { options.insert(.prettyPrinted) }
        if names.contains("withoutEscapingSlashes") { options.insert(.withoutEscapingSlashes) }
        return options
    }
}
