import SluiceCore

/// Whether a response may be stored (RFC 9111 §3) by a private cache. Pure.
enum Storability: Equatable {
    case storable
    /// Why not, for tests and logs.
    case notStorable(String)

    /// Whether the response to `request` (its method and headers as sent) with `statusCode` and
    /// `responseHeaders` may be stored.
    static func judge(method: HTTPMethod, requestHeaders: HTTPHeaders, statusCode: Int, responseHeaders: HTTPHeaders) -> Self {
        // Only GET is stored; HEAD is answered from a stored GET (RFC 9111 §4.3.5 allows no more).
        guard method == .get else { return .notStorable("method \(method.rawValue)") }
        // 206 needs ranges this cache does not combine; 1xx is not final; 304 only updates.
        guard statusCode >= 200, statusCode != 206, statusCode != 304 else { return .notStorable("status \(statusCode)") }
        let requestControl = CacheControl(requestHeaders)
        let control = CacheControl(responseHeaders)
        if requestControl.has("no-store") { return .notStorable("request no-store") }
        if control.has("no-store") { return .notStorable("response no-store") }
        if responseHeaders.values(for: "Vary").contains(where: { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "*" } }) {
            return .notStorable("Vary: *")
        }
        // RFC 9111 §3.5: a response to a request with credentials only when the response allows it.
        if requestHeaders.contains("Authorization"),
            !(control.has("public") || control.has("must-revalidate") || control.has("s-maxage"))
        {
            return .notStorable("request with Authorization")
        }
        // RFC 9111 §3: something must say it may be stored.
        let allowed = responseHeaders.contains("Expires") || control.has("max-age") || control.has("public")
            || control.has("private") || Freshness.heuristicallyCacheable.contains(statusCode)
        return allowed ? .storable : .notStorable("nothing allows storing status \(statusCode)")
    }
}
