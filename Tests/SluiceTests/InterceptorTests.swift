import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// A bearer token that the test refreshes from "stale" to "fresh".
struct Token: AuthenticationCredential {
    let value: String
    var expired = false
    var requiresRefresh: Bool { expired }
}

/// Refreshes any token into "fresh" after `delay` (so that concurrent requests are refused meanwhile and
/// wait for the one refresh), counting the refreshes. No count depends on the delay: a request refused
/// after the refresh was sent with the old token, finds the new one in place and retries without another.
struct TokenAuthenticator: Authenticator {
    let refreshes: Locked<Int>
    var delay: Duration = .milliseconds(200)

    func apply(_ credential: Token, to request: inout HTTPRequest) throws(SluiceError) {
        try request.headers.set(name: "Authorization", value: "Bearer \(credential.value)")
    }

    func refresh(_ credential: Token, for session: HTTPSessionManager) async throws -> Token {
        refreshes.withLock { $0 += 1 }
        try await Task.sleep(for: delay)
        return Token(value: "fresh")
    }

    func isRequest(_ request: HTTPRequest, authenticatedWith credential: Token) -> Bool {
        request.headers["Authorization"] == "Bearer \(credential.value)"
    }
}

@Suite("Interceptors and retries", .serialized)
struct InterceptorTests {
    static func flakyPath(failures: Int, extra: String = "") -> String {
        "sluice/flaky?key=\(UUID().uuidString)&failures=\(failures)\(extra)"
    }

    @Test("a server that fails twice then succeeds: three attempts, the third one answers", .tags(.server), .needsServers)
    func retriesUntilSuccess() async throws {
        let policy = RetryPolicy(exponentialBackoffScale: .milliseconds(20))
        let manager = try Support.manager(interceptor: policy)
        let response = try await manager.get(Self.flakyPath(failures: 2))
        #expect(response.attempts == 3)
        #expect(try Support.json(response.value)["attempts"] == .integer(3))
    }

    @Test("the limit: a server that keeps failing is tried retryLimit + 1 times", .tags(.server), .needsServers)
    func retryLimit() async throws {
        let manager = try Support.manager(interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(10)))
        let path = Self.flakyPath(failures: 10)
        let error = await #expect(throws: SluiceError.self) { try await manager.get(path) }
        #expect(error?.response?.statusCode == 503)
        // The server counted the attempts: one more request finds the fourth.
        let plain = try Support.manager()
        let count = await #expect(throws: SluiceError.self) { try await plain.get(path) }
        let text = String(decoding: count?.body ?? Data(), as: UTF8.self)
        #expect(text.contains("\"attempts\": 4"))
    }

    @Test("the final error says how many attempts were made, with or without a retrier", .tags(.server), .needsServers)
    func attemptsInError() async throws {
        let manager = try Support.manager(interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(10)))
        let retried = await #expect(throws: SluiceError.self) { try await manager.get(Self.flakyPath(failures: 10)) }
        #expect(retried?.attempts == 3)
        #expect(retried?.errorUserInfo["SluiceAttempts"] as? Int == 3)
        #expect(retried?.debugDescription.contains("attempts: 3") == true)
        let once = await #expect(throws: SluiceError.self) { try await manager.post(Self.flakyPath(failures: 1)) }
        #expect(once?.attempts == 1)
        let plain = try Support.manager()
        let unretried = await #expect(throws: SluiceError.self) { try await plain.get("status/404") }
        #expect(unretried?.attempts == 1)
        // Not sent by a manager: no count.
        #expect(SluiceError(.invalidURL, "x").attempts == nil)
    }

    @Test("POST is not idempotent: not retried; statuses outside the list are not retried", .tags(.server), .needsServers)
    func notRetried() async throws {
        let manager = try Support.manager(interceptor: RetryPolicy(exponentialBackoffScale: .milliseconds(10)))
        let post = await #expect(throws: SluiceError.self) { try await manager.post(Self.flakyPath(failures: 1)) }
        #expect(post?.response?.statusCode == 503)
        let teapot = await #expect(throws: SluiceError.self) {
            try await manager.get(Self.flakyPath(failures: 1, extra: "&status=418"))
        }
        #expect(teapot?.response?.statusCode == 418)
    }

    @Test("Retry-After is honoured, and one longer than the maximum gives up", .tags(.server), .needsServers)
    func retryAfter() async throws {
        let manager = try Support.manager(interceptor: RetryPolicy(exponentialBackoffScale: .milliseconds(10)))
        let started = ContinuousClock.now
        let response = try await manager.get(Self.flakyPath(failures: 1, extra: "&retry_after=1"))
        #expect(response.attempts == 2)
        // The retry waited the server's Retry-After. A lower bound: a busy machine only makes it longer.
        #expect(ContinuousClock.now - started >= .seconds(1))
        let impatient = try Support.manager(interceptor: RetryPolicy(maximumRetryAfter: .milliseconds(500)))
        let error = await #expect(throws: SluiceError.self) {
            try await impatient.get(Self.flakyPath(failures: 1, extra: "&retry_after=30"))
        }
        #expect(error?.response?.statusCode == 503)
    }

    @Test("the retry policy's rules: methods, bodies, Retry-After forms, back-off")
    func policyRules() throws {
        let policy = RetryPolicy(usesJitter: false)
        var request = HTTPRequest(url: URL(string: "http://example.com")!)
        let status503 = SluiceError(.unacceptableStatusCode, "x", response: HTTPResponse(statusCode: 503, url: request.url))
        #expect(policy.decision(for: request, error: status503, attempt: 1) == .retryAfter(.milliseconds(500)))
        #expect(policy.decision(for: request, error: status503, attempt: 2) == .retryAfter(.seconds(1)))
        #expect(policy.decision(for: request, error: status503, attempt: 3) == .doNotRetry)
        #expect(policy.decision(for: request, error: SluiceError(.connectionLost, "x"), attempt: 1).retries)
        #expect(!policy.decision(for: request, error: SluiceError(.invalidURL, "x"), attempt: 1).retries)
        final class OneShot: BodyStream, @unchecked Sendable {
            var contentLength: Int64? { 1 }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int { 0 }
        }
        request.method = .put
        request.body = .stream(OneShot())
        #expect(policy.decision(for: request, error: status503, attempt: 1) == .doNotRetry)
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.retryAfter("120") == .seconds(120))
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryPolicy.retryAfter("Sun Nov  6 08:49:38 1994", now: now) == .seconds(1))
        #expect(RetryPolicy.retryAfter("Sat, 05 Nov 1994 08:49:37 GMT", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("soon") == nil)
        let jittered = RetryPolicy()
        for _ in 0..<50 {
            let delay = jittered.backoff(attempt: 2)
            #expect(delay >= .milliseconds(500) && delay <= .seconds(1))
        }
    }

    @Test("adapters run before each attempt; one that throws stops the request before it is sent", .tags(.server), .needsServers)
    func adapters() async throws {
        let adapter = Interceptor(adapt: { request, _ in
            var request = request
            try request.headers.set(name: "X-Adapted", value: "1")
            return request
        })
        let manager = try Support.manager(interceptor: adapter)
        let echo = try Support.json(try await manager.get("headers").value)
        #expect(Support.string(Support.dictionary(echo["headers"])["X-Adapted"]) == "1")

        struct Refused: Error {}
        let refusing = try Support.manager(interceptor: Interceptor(adapt: { _, _ in throw Refused() }))
        let error = await #expect(throws: SluiceError.self) { try await refusing.get("get") }
        #expect(error?.code == .requestAdaptationFailed)
        #expect(error?.response == nil)
    }

    @Test("50 concurrent requests refused with 401: one refresh, then every request succeeds", .tags(.server), .needsServers)
    func singleRefresh() async throws {
        let refreshes = Locked(0)
        let interceptor = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(refreshes: refreshes), credential: Token(value: "stale"))
        let manager = try Support.manager(interceptor: interceptor)
        let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let response = try await manager.get("sluice/token")
                    return (response.response.statusCode, response.attempts)
                }
            }
            var all: [(Int, Int)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0.0 == 200 })
        #expect(statuses.allSatisfy { $0.1 <= 2 })
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await interceptor.refreshCount == 1)
        #expect(await interceptor.credential?.value == "fresh")
    }

    @Test("a server that refuses even fresh credentials ends with the excessive-refresh error", .tags(.server), .needsServers)
    func excessiveRefresh() async throws {
        struct Never: Authenticator {
            func apply(_ credential: Token, to request: inout HTTPRequest) throws(SluiceError) {
                try request.headers.set(name: "Authorization", value: "Bearer \(credential.value)")
            }
            func refresh(_ credential: Token, for session: HTTPSessionManager) async throws -> Token {
                Token(value: "still-wrong-\(UUID())")
            }
            func isRequest(_ request: HTTPRequest, authenticatedWith credential: Token) -> Bool {
                request.headers["Authorization"] == "Bearer \(credential.value)"
            }
        }
        // The limit counts refreshes within a window of wall-clock time (30 s by default); an hour keeps all
        // three in it however slow a loaded machine makes each round trip (one run took 40 s).
        let interceptor = AuthenticationInterceptor(
            authenticator: Never(), credential: Token(value: "x"), refreshLimit: 3, refreshWindow: .seconds(3600))
        let manager = try Support.manager(interceptor: interceptor)
        let error = await #expect(throws: SluiceError.self) { try await manager.get("sluice/token") }
        #expect(error?.code == .authenticationExcessiveRefresh)
        #expect(await interceptor.refreshCount == 3)
    }
}

extension RetryDecision: Equatable {
    public static func == (lhs: RetryDecision, rhs: RetryDecision) -> Bool {
        switch (lhs, rhs) {
        case (.retry, .retry), (.doNotRetry, .doNotRetry): true
        case (.retryAfter(let a), .retryAfter(let b)): a == b
        case (.doNotRetryWithError(let a), .doNotRetryWithError(let b)): a.code == b.code
        default: false
        }
    }
}
