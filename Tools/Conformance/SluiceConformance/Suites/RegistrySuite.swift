import Foundation
import SluiceCore

/// `core.registry`: which plugin the registry picks for a media type and a content coding name,
/// and which registrations it refuses. Vectors: `core/registry.json`.
struct RegistrySuite: ConformanceSuite {
    let name = "core.registry"
    let summary = "serializer lookup by media type (suffixes, wildcards, precedence) and plugin refusals"
    let requirements: ConformanceRequirements = .vectors

    fileprivate struct Vectors: Decodable {
        struct Plugin: Decodable {
            let name: String
            let version: String?
            let types: [String]?
            let codings: [String]?
        }
        struct Scenario: Decodable {
            struct Lookup: Decodable {
                let query: String
                let plugin: String?
            }
            struct CodingLookup: Decodable {
                let name: String
                let coding: String?
            }
            let id: String
            let plugins: [Plugin]
            let lookups: [Lookup]
            let codings: [CodingLookup]?
            let acceptEncoding: String?
        }
        struct Refusal: Decodable {
            let id: String
            let plugins: [Plugin]
            let replacing: Bool?
            let error: String?
        }
        let scenarios: [Scenario]
        let registrations: [Refusal]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "core/registry.json")
        var results: [CaseResult] = []
        for scenario in vectors.scenarios {
            let registry: SerializerRegistry
            do {
                registry = try SerializerRegistry(plugins: scenario.plugins.map(FixturePlugin.init))
            } catch {
                results.append(CaseResult(id: scenario.id, passed: false, detail: "setup failed: \(error)"))
                continue
            }
            for lookup in scenario.lookups {
                let found = MediaType(lookup.query).flatMap { registry.responseMatch(for: $0)?.plugin.name }
                results.append(.expect("\(scenario.id): \(lookup.query)", found ?? "none", equals: lookup.plugin ?? "none"))
            }
            for lookup in scenario.codings ?? [] {
                let found = registry.contentCoding(named: lookup.name)?.name
                results.append(.expect("\(scenario.id): coding \(lookup.name)", found ?? "none", equals: lookup.coding ?? "none"))
            }
            if let expected = scenario.acceptEncoding {
                results.append(.expect("\(scenario.id): Accept-Encoding", registry.acceptEncoding ?? "", equals: expected))
            }
        }
        for refusal in vectors.registrations {
            let registry = SerializerRegistry()
            var outcome = "accepted"
            for plugin in refusal.plugins {
                do {
                    try registry.register(FixturePlugin(plugin), replacing: refusal.replacing ?? false)
                } catch {
                    outcome = error.code.rawValue
                    break
                }
            }
            results.append(.expect(refusal.id, outcome, equals: refusal.error ?? "accepted"))
        }
        return results
    }
}

/// A plugin described by a vector: it declares media types and codings and serializes by echoing
/// the media type it was made for.
private struct FixturePlugin: SerializerPlugin {
    let name: String
    let version: String
    let responseMediaTypes: [MediaType]
    let contentCodings: [any ContentCoding]

    init(_ vector: RegistrySuite.Vectors.Plugin) {
        name = vector.name
        version = vector.version ?? "1.0.0"
        responseMediaTypes = (vector.types ?? []).compactMap { MediaType($0) }
        contentCodings = (vector.codings ?? []).map(NamedCoding.init)
    }

    func makeResponseSerializer(for mediaType: MediaType) -> (any ResponseSerializer)? {
        EchoSerializer(mediaType: mediaType)
    }

    struct EchoSerializer: ResponseSerializer {
        let mediaType: MediaType
        func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> String {
            mediaType.essence
        }
    }

    struct NamedCoding: ContentCoding {
        let name: String
        func makeDecoder(limits: ContentCodingLimits) -> any ContentDecoder {
            IdentityCoding().makeDecoder(limits: limits)
        }
    }
}
