import Foundation
import SluiceCore

/// An HTTP cache for one session (RFC 9111 for a private cache, `stale-if-error` from RFC 5861, and
/// NSURLRequest's cache policies): a layer for the cache slot of the session's pipeline.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.cache = HTTPCache(store: MemoryCacheStore(capacity: 50 << 20))
/// ```
///
/// In the slot it sits below redirects and authentication rounds (each hop is stored and served on its
/// own) and below the bridge (it sees each request as sent, `Accept-Encoding` included, so `Vary` is
/// judged on that). For each request it serves a fresh stored response without the network (marked
/// ``ResponseSource/cache``), revalidates a stale one with its validators (a `304` serves the stored body,
/// marked ``ResponseSource/revalidatedCache``), or fetches and stores. A stale response allowed by
/// `stale-while-revalidate` is served at once (``ResponseSource/staleCache``) and revalidated in the
/// background on a task of its own; one allowed by `stale-if-error` is served when the server fails. A successful unsafe request
/// (POST, PUT, DELETE, PATCH…) removes what is stored for its URL and its same-origin `Location` and
/// `Content-Location`.
///
/// Content codings: the session decodes a response body as it arrives, below the cache, so the store
/// holds the decoded body with the head as received; a response served from the store has the same head
/// (its `Content-Encoding` and `Content-Length` as the server sent them) and the same body as the one
/// served from the network, plus an `Age` field.
///
/// The request's ``HTTPRequest/cachePolicy`` and its `Cache-Control` directives (`no-cache`, `no-store`,
/// `max-age`, `max-stale`, `min-fresh`, `only-if-cached`, `stale-if-error`) are obeyed. A request that
/// must not use the network and finds nothing stored fails with ``SluiceError/Code/cacheMiss``.
public final class HTTPCache: HTTPLayer {
    /// Where responses are kept.
    public let store: any HTTPCacheStore
    private let now: @Sendable () -> Date
    /// Keys being revalidated in the background: one revalidation at a time per key.
    private let revalidating = Locked<Set<String>>([])

    /// A cache keeping responses in `store`.
    ///
    /// - Parameter store: Default a ``MemoryCacheStore`` of 20 MiB.
    public init(store: any HTTPCacheStore = MemoryCacheStore()) {
        self.store = store
        self.now = { Date() }
    }

    /// A cache whose clock is `now` (for tests of freshness).
    init(store: any HTTPCacheStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// The primary key of a request to `url`: its absolute form without a fragment.
    public static func key(for url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    /// Serves, revalidates or fetches `request` as described above.
    ///
    /// - Throws: ``SluiceError/Code/cacheMiss`` when nothing stored may answer and the request forbids
    ///   the network; otherwise what the layers below threw (unless a stale response may be served in
    ///   its place under `stale-if-error`).
    public func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let key = Self.key(for: request.url)
        switch CachePlan.make(for: request, variants: store.responses(forKey: key), now: now()) {
        case .pass(let invalidates):
            let answer = try await next(request, context: context)
            if invalidates { invalidate(after: answer, of: request) }
            return answer
        case .unsatisfiable:
            throw SluiceError(
                .cacheMiss, "no stored response may answer \(request.method.rawValue) \(key), and the request forbids the network",
                request: request)
        case .serve(let stored, let stale, let age):
            if let served = serve(stored, for: request, source: stale ? .staleCache : .cache, age: age) { return served }
            return try await fetch(request, key: key, context: context, next: next, stale: nil)
        case .serveStaleAndRevalidate(let stored, let age):
            // Without a chain that outlives this call (layers run without a session), revalidated now.
            guard let background = next.detached, let served = serve(stored, for: request, source: .staleCache, age: age) else {
                return try await revalidate(stored, request: request, key: key, context: context, next: next)
            }
            revalidateInBackground(stored, request: request, key: key, next: background)
            return served
        case .revalidate(let stored):
            return try await revalidate(stored, request: request, key: key, context: context, next: next)
        case .fetch(let stale):
            return try await fetch(request, key: key, context: context, next: next, stale: stale)
        }
    }

    // MARK: Fetching and storing

    private func fetch(
        _ request: HTTPRequest, key: String, context: HTTPLayerContext, next: HTTPLayerNext, stale: CachedResponse?
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let requestDate = now()
        let answer: HTTPLayerResponse
        do {
            answer = try await next(request, context: context)
        } catch {
            if let stale, let served = serveStale(stale, for: request, after: error) { return served }
            throw error
        }
        if answer.response.statusCode >= 500, let stale, let served = serveStale(stale, for: request, after: nil) { return served }
        return keep(answer, for: request, key: key, requestDate: requestDate, responseDate: now())
    }

    private func revalidate(
        _ stored: CachedResponse, request: HTTPRequest, key: String, context: HTTPLayerContext, next: HTTPLayerNext
    ) async throws(SluiceError) -> HTTPLayerResponse {
        let requestDate = now()
        let answer: HTTPLayerResponse
        do {
            answer = try await next(CachePlan.conditional(request, for: stored), context: context)
        } catch {
            if let served = serveStale(stored, for: request, after: error) { return served }
            throw error
        }
        let responseDate = now()
        let status = answer.response.statusCode
        if status == 304 {
            if let updated = freshen(stored, key: key, notModified: answer, requestDate: requestDate, responseDate: responseDate) {
                // The exchange's record of the 304 says where the answer came from: the store, confirmed.
                var transactions = answer.transactions
                if transactions.isEmpty {
                    transactions = [TaskMetrics.Transaction(url: request.url, statusCode: 304, httpVersion: nil, source: .revalidatedCache)]
                } else {
                    transactions[transactions.count - 1].source = .revalidatedCache
                }
                if let served = serve(updated, for: request, source: .revalidatedCache, transactions: transactions) {
                    return served
                }
            }
            // The 304 names another representation (or the stored body went meanwhile): ask in full.
            return try await fetch(request, key: key, context: context, next: next, stale: nil)
        }
        if status >= 500, let served = serveStale(stored, for: request, after: nil) { return served }
        return keep(answer, for: request, key: key, requestDate: requestDate, responseDate: responseDate)
    }

    /// `stored` with the 304's fields and this exchange's dates, put back in the store; `nil` when the 304
    /// names another representation (RFC 9111 §4.3.4), which then changes nothing.
    private func freshen(
        _ stored: CachedResponse, key: String, notModified answer: HTTPLayerResponse, requestDate: Date, responseDate: Date
    ) -> CachedResponse? {
        guard Revalidation.selects(stored, notModified: answer.response.headers) else { return nil }
        let updated = Revalidation.updated(stored, with: answer.response.headers, requestDate: requestDate, responseDate: responseDate)
        store.update(updated, key: key)
        return updated
    }

    /// Revalidates `stored` on a call of its own (``HTTPLayerNext/detached``), once per key at a time:
    /// a 304 freshens it, a full answer replaces it.
    private func revalidateInBackground(_ stored: CachedResponse, request: HTTPRequest, key: String, next: HTTPLayerNext) {
        guard revalidating.withLock({ $0.insert(key).inserted }) else { return }
        Task { [self] in
            defer { _ = revalidating.withLock { $0.remove(key) } }
            let requestDate = now()
            guard let answer = try? await next(CachePlan.conditional(request, for: stored), context: HTTPLayerContext(destination: .memory))
            else { return }
            let responseDate = now()
            if answer.response.statusCode == 304 {
                _ = freshen(stored, key: key, notModified: answer, requestDate: requestDate, responseDate: responseDate)
            } else if answer.response.statusCode < 500 {
                _ = keep(answer, for: request, key: key, requestDate: requestDate, responseDate: responseDate)
            }
        }
    }

    /// Stores `answer` when it may be (its body as it is delivered), and returns it to be delivered.
    private func keep(_ answer: HTTPLayerResponse, for request: HTTPRequest, key: String, requestDate: Date, responseDate: Date)
        -> HTTPLayerResponse
    {
        switch answer.source {
        case .network, .layer: break
        case .cache, .revalidatedCache, .staleCache: return answer
        }
        let response = answer.response
        guard
            case .storable = Storability.judge(
                method: request.method, requestHeaders: request.headers, statusCode: response.statusCode,
                responseHeaders: response.headers)
        else {
            // A full answer that may not be stored still supersedes what was stored (RFC 9111 §4.4 for
            // unsafe methods; here, a GET whose answer says no-store).
            if request.method == .get, response.statusCode < 500 { store.remove(key: key) }
            return answer
        }
        let entry = CachedResponse(
            url: request.url, statusCode: response.statusCode, headers: response.headers,
            varyingRequestHeaders: CachedResponse.varyingValues(of: request.headers, for: response.headers),
            requestDate: requestDate, responseDate: responseDate)
        guard let writer = store.makeWriter(for: entry, key: key) else { return answer }
        switch answer.body.content {
        case .data(let bytes):
            if writer.write(bytes) { writer.commit() }
            return answer
        case .file(let url):
            if Self.copy(url, into: writer) { writer.commit() } else { writer.abandon() }
            return answer
        case .stream:
            var kept = answer
            kept.body = answer.body.observed(
                onChunk: { chunk in _ = writer.write(chunk) },
                onEnd: { result in
                    if case .success = result { writer.commit() } else { writer.abandon() }
                })
            return kept
        }
    }

    /// Reads the file at `url` into `writer`, a megabyte at a time; `false` when it cannot be read or
    /// the store stops taking it.
    private static func copy(_ url: URL, into writer: any CacheBodyWriter) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        while true {
            guard let chunk = try? handle.read(upToCount: 1 << 20) else { return false }
            if chunk.isEmpty { return true }
            guard writer.write(chunk) else { return false }
        }
    }

    // MARK: Serving

    /// `stored` as an answer to `request`, with its current `Age` (`age`, when the plan knew it); `nil`
    /// when the store lost its body.
    private func serve(
        _ stored: CachedResponse, for request: HTTPRequest, source: ResponseSource, age known: TimeInterval? = nil,
        transactions: [TaskMetrics.Transaction] = []
    ) -> HTTPLayerResponse? {
        let body: HTTPLayerBody
        if request.method == .head {
            body = .empty
        } else {
            guard let stored = store.body(of: stored) else { return nil }
            body = stored
        }
        var headers = stored.headers
        let age = known ?? Freshness(of: stored, now: now()).age
        if let field = try? HTTPHeader(name: "Age", value: String(Int(min(age, TimeInterval(Int32.max))))) {
            headers.replace(with: field)
        }
        return HTTPLayerResponse(
            request: request, response: HTTPResponse(statusCode: stored.statusCode, headers: headers, url: request.url),
            body: body, source: source, transactions: transactions)
    }

    /// `stored`, stale, in place of a failure, when `stale-if-error` allows it; never for a cancel.
    private func serveStale(_ stored: CachedResponse, for request: HTTPRequest, after error: SluiceError?) -> HTTPLayerResponse? {
        if let error, error.code == .cancelled { return nil }
        guard CachePlan.mayServeStaleOnError(stored, request: request, now: now()) else { return nil }
        return serve(stored, for: request, source: .staleCache)
    }

    // MARK: Invalidation

    /// After a successful unsafe request, what is stored for its URL and its same-origin `Location` and
    /// `Content-Location` goes (RFC 9111 §4.4).
    private func invalidate(after answer: HTTPLayerResponse, of request: HTTPRequest) {
        let status = answer.response.statusCode
        guard (200..<400).contains(status) else { return }
        store.remove(key: Self.key(for: request.url))
        for name in ["Location", "Content-Location"] {
            guard let value = answer.response.headers.first(name),
                let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                Self.sameOrigin(target, request.url)
            else { continue }
            store.remove(key: Self.key(for: target))
        }
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }
}
