import Foundation
import SluiceCore

/// What the cache does with one request (RFC 9111 §4 and NSURLRequest's cache policies), decided from
/// the request as sent, the stored variants of its URL and the time. Pure: no store, no network.
enum CachePlan: Equatable {
    /// Not a request the cache answers (an unsafe method, a range, the caller's own conditional request):
    /// sent on, its response not stored. `invalidates`: a success invalidates the URL (RFC 9111 §4.4).
    case pass(invalidates: Bool)
    /// Sent to the network; the response stored when allowed. `stale`: a stored response that may be
    /// served instead if the network fails (`stale-if-error`).
    case fetch(stale: CachedResponse?)
    /// Served from the store without the network; `stale` when past its freshness (allowed by the
    /// policy or by the request's `max-stale`); `age` its current age in seconds.
    case serve(CachedResponse, stale: Bool, age: TimeInterval)
    /// Sent with the stored response's validators; a 304 serves it.
    case revalidate(CachedResponse)
    /// Served stale at once under its `stale-while-revalidate` (RFC 5861 §3), and revalidated (or fetched
    /// again, without validators) in the background.
    case serveStaleAndRevalidate(CachedResponse, age: TimeInterval)
    /// Nothing stored may answer and the request forbids the network (`only-if-cached`,
    /// `returnCacheDataDontLoad`).
    case unsatisfiable

    /// Fields that make the caller's request one the cache leaves alone.
    static let callerConditionals = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// The plan for `request` given the stored `variants` of its URL (any order), at `now`.
    static func make(for request: HTTPRequest, variants: [CachedResponse], now: Date) -> CachePlan {
        let method = request.method
        guard method == .get || method == .head else {
            return .pass(invalidates: !["OPTIONS", "TRACE"].contains(method.rawValue))
        }
        if callerConditionals.contains(where: request.headers.contains) { return .pass(invalidates: false) }
        let control = CacheControl(request.headers, pragmaCounts: true)
        let policy = request.cachePolicy
        let onlyIfCached = control.has("only-if-cached") || policy == .returnCacheDataDontLoad
        // The newest variant that matches the request's Vary fields.
        let selected = variants.filter { $0.matches(requestHeaders: request.headers) }
            .max { $0.responseDate < $1.responseDate }
        if policy == .reloadIgnoringCache { return .fetch(stale: nil) }
        guard let stored = selected else { return onlyIfCached ? .unsatisfiable : .fetch(stale: nil) }
        let responseControl = stored.reading.control
        let freshness = Freshness(of: stored, now: now)
        if policy == .returnCacheDataElseLoad || policy == .returnCacheDataDontLoad {
            // NSURLRequest: stored data whatever its age.
            return .serve(stored, stale: !freshness.isFresh, age: freshness.age)
        }
        let mustValidate = control.has("no-cache") || responseControl.hasUnqualified("no-cache")
        if !mustValidate, acceptable(freshness, request: control, response: responseControl) {
            return .serve(stored, stale: !freshness.isFresh, age: freshness.age)
        }
        if onlyIfCached { return .unsatisfiable }
        if !mustValidate, !responseControl.has("must-revalidate"), !responseControl.has("proxy-revalidate"),
            let window = responseControl.seconds("stale-while-revalidate"), freshness.staleness <= TimeInterval(window)
        {
            return .serveStaleAndRevalidate(stored, age: freshness.age)
        }
        let canValidate = stored.headers.contains("ETag") || stored.headers.contains("Last-Modified")
        return canValidate ? .revalidate(stored) : .fetch(stale: stored)
    }

    /// Whether a stored response of `freshness` may be served without validation under the request's
    /// `max-age`, `min-fresh` and `max-stale` and the response's `must-revalidate` (RFC 9111 §5.2.1, §5.2.2.2).
    static func acceptable(_ freshness: Freshness, request: CacheControl, response: CacheControl) -> Bool {
        if let maxAge = request.seconds("max-age"), freshness.age > TimeInterval(maxAge) { return false }
        if let minFresh = request.seconds("min-fresh"), freshness.remaining < TimeInterval(minFresh) { return false }
        if freshness.isFresh { return true }
        // Stale: only when the request accepts it and the response does not forbid it.
        guard request.has("max-stale"), !response.has("must-revalidate"), !response.has("proxy-revalidate") else { return false }
        guard let limit = request.seconds("max-stale") else {
            // `max-stale` without a value accepts any staleness; with an invalid value, none.
            return request.hasUnqualified("max-stale")
        }
        return freshness.staleness <= TimeInterval(limit)
    }

    /// Whether `stored` may be served, stale, in place of a failed fetch or revalidation (a 5xx, a
    /// connection failure) under `stale-if-error` (RFC 5861 §4) of the response or the request.
    static func mayServeStaleOnError(_ stored: CachedResponse, request: HTTPRequest, now: Date) -> Bool {
        let responseControl = stored.reading.control
        if responseControl.has("must-revalidate") || responseControl.has("proxy-revalidate") { return false }
        let requestControl = CacheControl(request.headers)
        let limit = [requestControl.seconds("stale-if-error"), responseControl.seconds("stale-if-error")].compactMap { $0 }.max()
        guard let limit else { return false }
        return Freshness(of: stored, now: now).staleness <= TimeInterval(limit)
    }

    /// The request with `stored`'s validators (RFC 9111 §4.3.1): `If-None-Match` with its `ETag`,
    /// `If-Modified-Since` with its `Last-Modified`.
    static func conditional(_ request: HTTPRequest, for stored: CachedResponse) -> HTTPRequest {
        var conditional = request
        // The stored values were valid fields when received: building them again cannot fail.
        if let etag = stored.headers.first("ETag"), let field = try? HTTPHeader(name: "If-None-Match", value: etag) {
            conditional.headers.replace(with: field)
        }
        if let lastModified = stored.headers.first("Last-Modified"),
            let field = try? HTTPHeader(name: "If-Modified-Since", value: lastModified)
        {
            conditional.headers.replace(with: field)
        }
        return conditional
    }
}
