import Foundation
import SluiceCore

/// The cache's readings of a response's header fields, for the fuzz target `FuzzCacheHeaders` (a package of
/// its own, which sees only public and SPI symbols): what a stored response with `fields` says about itself.
@_spi(Fuzzing)
public enum CacheHeaderReading {
    /// What the cache reads from one set of fields.
    public struct Reading {
        /// The freshness lifetime in seconds, and whether it is heuristic.
        public let lifetime: Double
        public let heuristic: Bool
        /// The current age in seconds, `now` being an hour after the response was stored.
        public let age: Double
        /// The `max-age` directive's value, if any.
        public let maxAge: Int?
        /// Whether the response may be stored for a GET.
        public let storable: Bool
        /// The plan for a GET with `requestFields`, by name.
        public let plan: String
    }

    /// Reads `fields` as a stored response's (status `status`) and `requestFields` as a new request's.
    public static func read(status: Int, fields: HTTPHeaders, requestFields: HTTPHeaders) -> Reading {
        let storedAt = Date(timeIntervalSince1970: 1_700_000_000)
        let stored = CacheDecisions.stored(status: status, fields: fields, storedAt: storedAt, requestFields: requestFields)
        let freshness = Freshness(of: stored, now: storedAt.addingTimeInterval(3600))
        var request = HTTPRequest(url: URL(string: "http://fuzz.test/r")!)
        request.headers = requestFields
        return Reading(
            lifetime: freshness.lifetime, heuristic: freshness.isHeuristic, age: freshness.age,
            maxAge: CacheControl(fields).seconds("max-age"),
            storable: CacheDecisions.isStorable(method: .get, requestFields: requestFields, status: status, fields: fields),
            plan: CacheDecisions.plan(stored: (status, fields), storedAt: storedAt, age: 3600, request: request))
    }

    /// The HTTP date `text` names, or `nil`.
    public static func date(_ text: String) -> Date? { HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_700_000_000)) }

    /// `date` as an IMF-fixdate.
    public static func format(_ date: Date) -> String { HTTPDate.format(date) }
}
