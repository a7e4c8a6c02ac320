import Foundation
import SluiceCore

/// The cache's pure decisions with plain inputs and outputs, for the `cache.decisions` conformance suite
/// and its vectors (Tests/Vectors/cache/decisions.json): a stored response is its status and fields,
/// stored at `storedAt` (requested and received then); ages are seconds after that.
package enum CacheDecisions {
    /// A response stored at `storedAt`, with a `Date` of that moment unless `fields` give one.
    package static func stored(status: Int, fields: HTTPHeaders, storedAt: Date, requestFields: HTTPHeaders = HTTPHeaders())
        -> CachedResponse
    {
        var fields = fields
        if !fields.contains("Date"), let date = try? HTTPHeader(name: "Date", value: HTTPDate.format(storedAt)) { fields.add(date) }
        return CachedResponse(
            url: URL(string: "http://conformance.test/r")!, statusCode: status, headers: fields,
            varyingRequestHeaders: CachedResponse.varyingValues(of: requestFields, for: fields),
            requestDate: storedAt, responseDate: storedAt)
    }

    /// The freshness lifetime in seconds and whether it is heuristic.
    package static func lifetime(status: Int, fields: HTTPHeaders, storedAt: Date) -> (seconds: Double, heuristic: Bool) {
        let freshness = Freshness(of: stored(status: status, fields: fields, storedAt: storedAt), now: storedAt)
        return (freshness.lifetime, freshness.isHeuristic)
    }

    /// Whether the response may be stored.
    package static func isStorable(method: HTTPMethod, requestFields: HTTPHeaders, status: Int, fields: HTTPHeaders) -> Bool {
        Storability.judge(method: method, requestHeaders: requestFields, statusCode: status, responseHeaders: fields) == .storable
    }

    /// What a request does: `serve`, `serveStale`, `serveStaleAndRevalidate`, `revalidate`, `fetch`, `pass`,
    /// `passInvalidating` or `unsatisfiable`. `stored` `nil`: nothing is stored.
    package static func plan(stored: (status: Int, fields: HTTPHeaders)?, storedAt: Date, age: Double, request: HTTPRequest) -> String {
        let variants = stored.map { [Self.stored(status: $0.status, fields: $0.fields, storedAt: storedAt)] } ?? []
        switch CachePlan.make(for: request, variants: variants, now: storedAt.addingTimeInterval(age)) {
        case .serve(_, let stale, _): return stale ? "serveStale" : "serve"
        case .serveStaleAndRevalidate: return "serveStaleAndRevalidate"
        case .revalidate: return "revalidate"
        case .fetch: return "fetch"
        case .pass(let invalidates): return invalidates ? "passInvalidating" : "pass"
        case .unsatisfiable: return "unsatisfiable"
        }
    }

    /// Whether a 304 with `notModified` fields selects the stored response with `fields`.
    package static func selects(storedFields fields: HTTPHeaders, notModified: HTTPHeaders) -> Bool {
        Revalidation.selects(stored(status: 200, fields: fields, storedAt: Date(timeIntervalSince1970: 0)), notModified: notModified)
    }

    /// Whether the stored response may stand in for a failure at `age`.
    package static func mayServeStaleOnError(fields: HTTPHeaders, requestFields: HTTPHeaders, storedAt: Date, age: Double) -> Bool {
        var request = HTTPRequest(url: URL(string: "http://conformance.test/r")!)
        request.headers = requestFields
        return CachePlan.mayServeStaleOnError(
            stored(status: 200, fields: fields, storedAt: storedAt), request: request, now: storedAt.addingTimeInterval(age))
    }
}

extension CacheDecisions {
    /// `date` as an IMF-fixdate.
    package static func format(_ date: Date) -> String { HTTPDate.format(date) }
}
