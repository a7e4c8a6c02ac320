import Foundation
import SluiceCore
import SluiceTransport

/// Stubs for a session's requests in a user's tests: a layer of the session's pipeline that answers
/// each request from the first stub that matches it, records every request as sent, and fails a
/// request no stub matches (or passes it to the network, when asked).
///
/// It sits where URLSession's `protocolClasses` sit: at the bottom of the pipeline, just above the
/// network, in the session's configuration. Everything above runs as it does against a server: the
/// caller's layers and interceptors, retries, redirects and authentication rounds (each hop is matched
/// on its own), the session's default headers and `Accept-Encoding`, decoding, the cache, the response
/// serializers, and every way to send (async calls, completion handlers, tasks, downloads into files,
/// streams). Stubs belong to one session, so parallel tests do not see each other's.
///
/// ```swift
/// let stubs = HTTPStubs()
/// stubs.stub(.get("https://api.example.com/v1/items"), .json(#"[{"id": 1}]"#))
/// let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1/")!, configuration: stubs.configuration())
/// let items = try await manager.get("items", as: [Item].self)
/// #expect(stubs.requests.map(\.description) == ["GET https://api.example.com/v1/items"])
/// ```
///
/// Stubs are tried in the order they were registered; the first that matches answers. A stub registered
/// with `times:` stops matching once used that many times, so one registered before another for the same
/// request answers first (a 503, then a 200); ``stub(_:sequence:)`` does the same in one stub.
///
/// Request bodies are read whole (streams and files too): that is what is matched and recorded.
public final class HTTPStubs: HTTPLayer {
    /// What becomes of a request that no stub matches.
    public enum UnmatchedRequests: Sendable {
        /// It fails with ``SluiceError/Code/noMatchingStub``, naming the closest stub.
        case fail
        /// It goes on to the network, unchanged.
        case passThrough
    }

    /// A registered stub, to remove it or count its calls.
    public struct StubID: Hashable, Sendable, CustomStringConvertible {
        let number: Int
        /// "stub N", N counting registrations from 1.
        public var description: String { "stub \(number)" }
    }

    private struct Stub {
        let id: StubID
        let matcher: StubMatcher
        let responses: [StubResponse]
        let limit: Int?
        var calls = 0

        var isUsedUp: Bool { responses.isEmpty || limit.map { calls >= $0 } ?? false }

        /// The response for the next call: the sequence's next, its last once it ran out.
        mutating func take() -> StubResponse {
            defer { calls += 1 }
            return responses[min(calls, responses.count - 1)]
        }
    }

    private struct State {
        var stubs: [Stub] = []
        var recorded: [RecordedRequest] = []
        var registered = 0
    }

    private enum Decision {
        case answer(StubResponse)
        case unmatched(String)
    }

    private let state = Locked(State())

    /// What becomes of a request no stub matches. Default ``UnmatchedRequests/fail``.
    public let unmatchedRequests: UnmatchedRequests
    /// How long a stub may stay silent before the request fails with
    /// ``SluiceError/Code/idleTimedOut``, for a request without its own ``HTTPRequest/timeout``. Default
    /// 60 s, the session's default idle timeout; set it to the session's ``SessionConfiguration/idleTimeout``
    /// when that differs.
    public let idleTimeout: Duration

    /// Stubs with none registered.
    ///
    /// - Parameters:
    ///   - unmatchedRequests: What becomes of a request no stub matches. Default ``UnmatchedRequests/fail``.
    ///   - idleTimeout: The timeout of a request without its own. Default 60 s.
    public init(unmatchedRequests: UnmatchedRequests = .fail, idleTimeout: Duration = .seconds(60)) {
        self.unmatchedRequests = unmatchedRequests
        self.idleTimeout = idleTimeout
    }

    // MARK: Registering

    /// Answers requests `matcher` matches with `response`, at most `times` times (every time for `nil`).
    ///
    /// - Parameters:
    ///   - matcher: The requests it answers.
    ///   - response: The answer.
    ///   - times: How many requests it answers before it stops matching. Default no limit.
    /// - Returns: The stub, to ``remove(_:)`` it or count its ``calls(to:)``.
    @discardableResult
    public func stub(_ matcher: StubMatcher, _ response: StubResponse, times: Int? = nil) -> StubID {
        register(matcher, [response], limit: times.map { max(0, $0) })
    }

    /// Answers the requests `matcher` matches with `responses` in turn: the first with the first, the
    /// second with the second, and every one after the last with the last. An empty list answers nothing.
    ///
    /// - Returns: The stub, to ``remove(_:)`` it or count its ``calls(to:)``.
    @discardableResult
    public func stub(_ matcher: StubMatcher, sequence responses: [StubResponse]) -> StubID {
        register(matcher, responses, limit: nil)
    }

    private func register(_ matcher: StubMatcher, _ responses: [StubResponse], limit: Int?) -> StubID {
        state.withLock { state in
            state.registered += 1
            let id = StubID(number: state.registered)
            state.stubs.append(Stub(id: id, matcher: matcher, responses: responses, limit: limit))
            return id
        }
    }

    /// Removes the stub `id`; nothing for one already removed.
    public func remove(_ id: StubID) { state.withLock { $0.stubs.removeAll { $0.id == id } } }

    /// Removes every stub and forgets the recorded requests.
    public func reset() {
        state.withLock { state in
            state.stubs.removeAll()
            state.recorded.removeAll()
        }
    }

    // MARK: Reading what happened

    /// Every request that reached the stubs, in order, as sent (matched or not).
    public var requests: [RecordedRequest] { state.withLock { $0.recorded } }

    /// How many requests the stub `id` answered (0 for one removed).
    public func calls(to id: StubID) -> Int { state.withLock { $0.stubs.first { $0.id == id }?.calls ?? 0 } }

    /// `base` with these stubs at the bottom of its network layers, just above the network.
    ///
    /// - Parameter base: The configuration to stub. Default the defaults.
    public func configuration(_ base: SessionConfiguration = SessionConfiguration()) -> SessionConfiguration {
        var configuration = base
        configuration.networkLayers.append(self)
        return configuration
    }

    // MARK: The layer

    /// Records `request` and answers it from the first stub that matches.
    ///
    /// - Throws: ``SluiceError/Code/noMatchingStub`` when no stub matches and unmatched requests fail;
    ///   the stub's failure; ``SluiceError/Code/idleTimedOut`` for a stub slower than the timeout;
    ///   ``SluiceError/Code/cancelled``; what the body's stream throws while it is read.
    public func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let body = try await RequestBodyReading.bytes(of: request.body, request: request, context: context)
        var sent = request
        if case .stream = request.body { sent.body = .bytes(body) }
        let recorded = RecordedRequest(request: sent, body: body, hop: context.hop)
        let decision = state.withLock { state -> Decision in
            state.recorded.append(recorded)
            for index in state.stubs.indices where !state.stubs[index].isUsedUp && state.stubs[index].matcher.matches(recorded) {
                return .answer(state.stubs[index].take())
            }
            return .unmatched(Self.explainMiss(recorded, among: state.stubs))
        }
        switch decision {
        case .answer(let response):
            return try await answer(response, to: sent, recorded: recorded, context: context)
        case .unmatched(let message):
            guard unmatchedRequests == .passThrough else { throw SluiceError(.noMatchingStub, message, request: request) }
            return try await next(sent, context: context)
        }
    }

    private func answer(_ response: StubResponse, to request: HTTPRequest, recorded: RecordedRequest, context: HTTPLayerContext)
        async throws(SluiceError) -> HTTPLayerResponse
    {
        let started = ContinuousClock.now
        let timeout = request.timeout.map { Duration.milliseconds(Int64(($0 * 1000).rounded(.up))) } ?? idleTimeout
        try await StubClock.wait(response.delay, timeout: timeout, context: context, request: request)
        if let failure = response.failure, !failure.afterBody {
            throw SluiceError(failure.code, failure.message, request: request)
        }
        var headers = response.headers
        let omitsBody = request.method == .head || response.statusCode == 204 || response.statusCode == 304
        let body: HTTPLayerBody
        var length: Int64?
        switch response.body {
        case .data(let data):
            length = Int64(data.count)
            body = omitsBody ? .empty : .data(data)
        case .file(let url):
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else {
                throw SluiceError(.downloadFailed, "the stub's file \(url.path) cannot be read", request: request)
            }
            length = size.int64Value
            body = omitsBody ? .empty : .file(url)
        case .chunks(let chunks, let interval):
            let failure = response.failure.map { SluiceError($0.code, $0.message, request: request) }
            body = omitsBody ? .empty : .stream(ResponseBodyStream(StubChunks(
                chunks: chunks, interval: interval, timeout: timeout, failure: failure, context: context, request: request)))
        }
        if let length, !headers.contains("Content-Length"), response.statusCode != 204, response.statusCode != 304 {
            headers.add(try HTTPHeader(name: "Content-Length", value: String(length)))
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let transaction = TaskMetrics.Transaction(
            url: request.url, statusCode: response.statusCode, httpVersion: "1.1", timeToFirstByte: seconds, total: seconds,
            bytesSent: Int64(recorded.body.count), bytesReceived: omitsBody ? 0 : length ?? 0, source: .layer("stub"))
        return HTTPLayerResponse(
            request: request, response: HTTPResponse(statusCode: response.statusCode, headers: headers, url: request.url),
            body: body, source: .layer("stub"), transactions: [transaction])
    }

    /// The message for a request no stub matched: the closest stub (the most conditions held; the
    /// earliest of equals) and what of it the request missed.
    private static func explainMiss(_ request: RecordedRequest, among stubs: [Stub]) -> String {
        let head = "no stub matches \(request)"
        guard !stubs.isEmpty else { return "\(head): none is registered" }
        var best: (stub: Stub, held: Int, missed: [String])?
        for stub in stubs {
            let (held, missed) = stub.matcher.misses(request)
            if best == nil || held > best!.held || (held == best!.held && missed.count < best!.missed.count) {
                best = (stub, held, missed)
            }
        }
        guard let best else { return head }
        let named = "\(best.stub.id) (\(best.stub.matcher))"
        if best.missed.isEmpty { return "\(head): the closest, \(named), matches it but has answered all the requests it may" }
        return "\(head) (\(stubs.count) registered): the closest is \(named), and the request misses "
            + best.missed.joined(separator: "; ")
    }
}
