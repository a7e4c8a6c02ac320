import Foundation
import SluiceCache

/// `cache.decisions`: SluiceCache's RFC 9111 and RFC 5861 decisions — freshness lifetimes, what may be
/// stored, what a request does with what is stored (and each cache policy), which stored response a 304
/// selects, when a stale one may stand in for a failure. Vectors: `cache/decisions.json`.
struct CacheSuite: ConformanceSuite {
    let name = "cache.decisions"
    let summary = "HTTP cache: freshness, storing, serving, validation, stale-if-error (RFC 9111, RFC 5861)"
    let requirements: ConformanceRequirements = .vectors

    private struct Vectors: Decodable {
        struct Lifetime: Decodable {
            let id: String
            let status: Int
            let response: [[String]]
            let seconds: Double
            let heuristic: Bool
        }
        struct Storable: Decodable {
            let id: String
            let method: String
            let request: [[String]]
            let status: Int
            let response: [[String]]
            let storable: Bool
        }
        struct Plan: Decodable {
            let id: String
            let stored: [[String]]?
            let age: Double
            let request: [[String]]
            let method: String
            let policy: String
            let plan: String
        }
        struct Selection: Decodable {
            let id: String
            let stored: [[String]]
            let notModified: [[String]]
            let selects: Bool
        }
        struct StaleIfError: Decodable {
            let id: String
            let stored: [[String]]
            let request: [[String]]
            let age: Double
            let allowed: Bool
        }
        let lifetime: [Lifetime]
        let storable: [Storable]
        let plans: [Plan]
        let selection: [Selection]
        let staleIfError: [StaleIfError]
    }

    /// The moment every vector's response was stored.
    static let storedAt = Date(timeIntervalSince1970: 1_700_000_000)

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "cache/decisions.json")
        var results: [CaseResult] = []
        let at = Self.storedAt
        for row in vectors.lifetime {
            let (seconds, heuristic) = CacheDecisions.lifetime(status: row.status, fields: try Self.fields(row.response), storedAt: at)
            results.append(.expect("lifetime: \(row.id)", "\(seconds) heuristic \(heuristic)", equals: "\(row.seconds) heuristic \(row.heuristic)"))
        }
        for row in vectors.storable {
            let storable = CacheDecisions.isStorable(
                method: HTTPMethod(rawValue: row.method), requestFields: try Self.fields(row.request), status: row.status,
                fields: try Self.fields(row.response))
            results.append(.expect("storable: \(row.id)", storable, equals: row.storable))
        }
        for row in vectors.plans {
            guard let policy = HTTPRequest.CachePolicy(rawValue: row.policy) else {
                throw ConformanceError("cache/decisions.json: \(row.id): no cache policy named \(row.policy)")
            }
            var request = HTTPRequest(url: URL(string: "http://conformance.test/r")!, method: HTTPMethod(rawValue: row.method))
            request.headers = try Self.fields(row.request)
            request.cachePolicy = policy
            let stored = try row.stored.map { (status: 200, fields: try Self.fields($0)) }
            results.append(.expect("plan: \(row.id)", CacheDecisions.plan(stored: stored, storedAt: at, age: row.age, request: request), equals: row.plan))
        }
        for row in vectors.selection {
            let selects = CacheDecisions.selects(storedFields: try Self.fields(row.stored), notModified: try Self.fields(row.notModified))
            results.append(.expect("304 selection: \(row.id)", selects, equals: row.selects))
        }
        for row in vectors.staleIfError {
            let allowed = CacheDecisions.mayServeStaleOnError(
                fields: try Self.fields(row.stored), requestFields: try Self.fields(row.request), storedAt: at, age: row.age)
            results.append(.expect("stale-if-error: \(row.id)", allowed, equals: row.allowed))
        }
        return results
    }

    /// Header fields from `[name, value]` pairs; a value `@+N` / `@-N` is the date N seconds after / before
    /// the moment of storing.
    static func fields(_ pairs: [[String]]) throws -> HTTPHeaders {
        var headers = HTTPHeaders()
        for pair in pairs {
            guard pair.count == 2 else { throw ConformanceError("cache/decisions.json: a field is not [name, value]: \(pair)") }
            var value = pair[1]
            if value.hasPrefix("@"), let offset = Double(value.dropFirst()) {
                value = CacheDecisions.format(storedAt.addingTimeInterval(offset))
            }
            try headers.add(name: pair[0], value: value)
        }
        return headers
    }
}
