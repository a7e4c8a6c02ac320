import Foundation
import SluiceCore

/// How fresh a stored response is (RFC 9111 §4.2) for a private cache: its freshness lifetime and its
/// current age. Pure: the time is given.
struct Freshness: Equatable {
    /// Seconds the response stays fresh from its origin's `Date`.
    let lifetime: TimeInterval
    /// Seconds since the origin made it, as of `now`.
    let age: TimeInterval
    /// Whether the lifetime was guessed from `Last-Modified` (no explicit expiry).
    let isHeuristic: Bool

    /// Whether it is fresh.
    var isFresh: Bool { lifetime > age }
    /// Seconds it has been stale (0 while fresh).
    var staleness: TimeInterval { max(0, age - lifetime) }
    /// Seconds it stays fresh (0 once stale).
    var remaining: TimeInterval { max(0, lifetime - age) }

    /// The longest heuristic lifetime: a tenth of the time since `Last-Modified`, capped at a week (as
    /// Firefox caps it), so a resource unchanged for years is not served unasked for months.
    static let heuristicCap: TimeInterval = 7 * 86_400

    /// Status codes a response may be stored with and given a heuristic lifetime without explicit
    /// freshness (RFC 9110 §15.1, "heuristically cacheable").
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    init(lifetime: TimeInterval, age: TimeInterval, isHeuristic: Bool = false) {
        self.lifetime = lifetime
        self.age = age
        self.isHeuristic = isHeuristic
    }

    /// The freshness of `response` at `now`, from what was read of its head when it was stored.
    init(of response: CachedResponse, now: Date) {
        let reading = response.reading
        self.init(
            lifetime: reading.lifetime,
            age: reading.correctedInitialAge + max(0, now.timeIntervalSince(response.responseDate)),
            isHeuristic: reading.isHeuristic)
    }

    static func lifetime(statusCode: Int, headers: HTTPHeaders, control: CacheControl, responseDate: Date)
        -> (TimeInterval, heuristic: Bool)
    {
        if let maxAge = control.seconds("max-age") { return (TimeInterval(maxAge), false) }
        let date = headers.first("Date").flatMap { HTTPDate.parse($0) } ?? responseDate
        if let expires = headers.first("Expires") {
            guard let expiry = HTTPDate.parse(expires) else { return (0, false) }
            return (max(0, expiry.timeIntervalSince(date)), false)
        }
        // RFC 9111 §4.2.2: only without explicit expiry, and only for heuristically cacheable statuses
        // or a response marked public.
        guard Self.heuristicallyCacheable.contains(statusCode) || control.has("public"),
            let lastModified = headers.first("Last-Modified").flatMap({ HTTPDate.parse($0) })
        else { return (0, false) }
        let sinceModified = date.timeIntervalSince(lastModified)
        guard sinceModified > 0 else { return (0, true) }
        return (min(sinceModified / 10, heuristicCap), true)
    }

    /// The current age (RFC 9111 §4.2.3): the corrected initial age plus the time it has been stored.
    static func currentAge(headers: HTTPHeaders, requestDate: Date, responseDate: Date, now: Date) -> TimeInterval {
        correctedInitialAge(headers: headers, requestDate: requestDate, responseDate: responseDate)
            + max(0, now.timeIntervalSince(responseDate))
    }

    /// The age a response had when it arrived (RFC 9111 §4.2.3's `corrected_initial_age`).
    static func correctedInitialAge(headers: HTTPHeaders, requestDate: Date, responseDate: Date) -> TimeInterval {
        let dateValue = headers.first("Date").flatMap { HTTPDate.parse($0) } ?? responseDate
        let ageValue = headers.first("Age").flatMap(CacheControl.deltaSeconds).map(TimeInterval.init) ?? 0
        let apparentAge = max(0, responseDate.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseDate.timeIntervalSince(requestDate))
        let correctedAgeValue = ageValue + responseDelay
        return max(apparentAge, correctedAgeValue)
    }
}
