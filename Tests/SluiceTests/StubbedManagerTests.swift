import Foundation
import Sluice
import SluiceTesting
import Testing

/// The manager's own logic over stubs (SluiceTesting, as users test theirs): adaptation order, retry
/// decisions, credential refresh, what a custom request serializer controls, downloads and tasks. No
/// socket is opened; the end-to-end versions of these run against the real servers in the other suites.
@Suite("HTTPSessionManager over stubs")
struct StubbedManagerTests {
    static let base = URL(string: "https://api.example.test/v1")!

    static func manager(_ stubs: HTTPStubs, interceptor: (any RequestInterceptor)? = nil) -> HTTPSessionManager {
        HTTPSessionManager(baseURL: base, configuration: stubs.configuration(), interceptor: interceptor)
    }

    /// Stubs answering every request with `answers` in turn (the last again once they run out).
    static func stubs(_ answers: StubResponse...) -> HTTPStubs {
        let stubs = HTTPStubs()
        stubs.stub(.any, sequence: answers)
        return stubs
    }

    static let ok = StubResponse.json(#"{"ok":true}"#)

    /// An adapter that appends `name` to the `X-Order` header.
    struct Tag: RequestAdapter {
        let name: String
        func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest {
            var request = request
            let order = request.headers["X-Order"].map { $0 + "," + name } ?? name
            try request.headers.set(name: "X-Order", value: order)
            return request
        }
    }

    @Test("adapters run in order before every attempt, each on the request as built, not on the last attempt's")
    func adapterOrder() async throws {
        let stubs = Self.stubs(.status(503), .status(503), Self.ok)
        let interceptor = Interceptor(
            adapters: [Tag(name: "a"), Tag(name: "b"), Tag(name: "c")],
            retriers: [RetryPolicy(exponentialBackoffScale: .milliseconds(1))])
        let response = try await Self.manager(stubs, interceptor: interceptor).get("items")
        #expect(response.attempts == 3)
        #expect(stubs.requests.map { $0.headers["X-Order"] } == ["a,b,c", "a,b,c", "a,b,c"])
        #expect(stubs.requests.allSatisfy { $0.url.absoluteString == "https://api.example.test/v1/items" })
    }

    @Test("interceptors combined: adapters of each in turn, and the first retrier that retries decides")
    func combinedInterceptors() async throws {
        let consulted = Locked<[String]>([])
        let first = Interceptor(adapt: { request, session in try await Tag(name: "first").adapt(request, for: session) },
                                retry: { _, _, _, _ in consulted.withLock { $0.append("first") }; return .doNotRetry })
        let second = Interceptor(adapt: { request, session in try await Tag(name: "second").adapt(request, for: session) },
                                 retry: { _, _, _, attempt in
                                     consulted.withLock { $0.append("second") }
                                     return attempt < 2 ? .retry : .doNotRetry
                                 })
        let stubs = Self.stubs(.status(500))
        let manager = Self.manager(stubs, interceptor: Interceptor(interceptors: [first, second]))
        let error = await #expect(throws: SluiceError.self) { try await manager.get("items") }
        #expect(error?.response?.statusCode == 500)
        #expect(error?.attempts == 2)
        #expect(stubs.requests.map { $0.headers["X-Order"] } == ["first,second", "first,second"])
        #expect(consulted.withLock { $0 } == ["first", "second", "first", "second"])
    }

    /// One retry case: what the stubs answer each attempt, the method, and what must happen.
    struct RetryCase: Sendable, CustomTestStringConvertible {
        let name: String
        let method: HTTPMethod
        let answers: [StubResponse]
        let attempts: Int
        let succeeds: Bool
        var testDescription: String { name }
    }

    static let retryCases: [RetryCase] = [
        RetryCase(name: "503 twice, then 200: three attempts", method: .get,
                  answers: [.status(503), .status(503), Self.ok], attempts: 3, succeeds: true),
        RetryCase(name: "a connection failure, then 200", method: .get,
                  answers: [.failure(.cannotConnect), Self.ok], attempts: 2, succeeds: true),
        RetryCase(name: "POST is not idempotent: one attempt", method: .post,
                  answers: [.status(503), Self.ok], attempts: 1, succeeds: false),
        RetryCase(name: "404 is not retried", method: .get, answers: [.status(404), Self.ok], attempts: 1, succeeds: false),
        RetryCase(name: "the limit: 2 retries, so 3 attempts", method: .get,
                  answers: Array(repeating: .status(502), count: 5), attempts: 3, succeeds: false),
        RetryCase(name: "Retry-After: 0 is honoured", method: .get,
                  answers: [.status(503, headers: ["Retry-After": "0"]), Self.ok], attempts: 2, succeeds: true),
        RetryCase(name: "a Retry-After over the maximum gives up", method: .get,
                  answers: [.status(503, headers: ["Retry-After": "3600"]), Self.ok], attempts: 1, succeeds: false),
        RetryCase(name: "a cancellation is never retried", method: .get,
                  answers: [.failure(.cancelled), Self.ok], attempts: 1, succeeds: false),
    ]

    @Test("retry decisions, attempt by attempt", arguments: retryCases)
    func retryDecisions(_ retry: RetryCase) async throws {
        let stubs = HTTPStubs()
        stubs.stub(.any, sequence: retry.answers)
        let policy = RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(1), maximumRetryAfter: .seconds(5))
        let manager = Self.manager(stubs, interceptor: policy)
        do throws(SluiceError) {
            let response = try await manager.send(manager.request(retry.method, "items"), serializer: JSONResponseSerializer())
            #expect(retry.succeeds)
            #expect(response.attempts == retry.attempts)
        } catch {
            #expect(!retry.succeeds, "\(error)")
            #expect(error.attempts == retry.attempts)
        }
        #expect(stubs.requests.count == retry.attempts)
    }

    @Test("50 concurrent requests refused with 401: one refresh, every request then succeeds with the new token")
    func singleRefresh() async throws {
        let refreshes = Locked(0)
        let interceptor = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(refreshes: refreshes, delay: .milliseconds(50)), credential: Token(value: "stale"))
        let stubs = HTTPStubs()
        stubs.stub(.header("Authorization", "Bearer fresh"), Self.ok)
        stubs.stub(.any, .status(401))
        let manager = Self.manager(stubs, interceptor: interceptor)
        let attempts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.get("me").attempts } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(attempts.count == 50 && attempts.allSatisfy { $0 <= 2 })
        #expect(refreshes.withLock { $0 } == 1)
        #expect(stubs.requests.filter { $0.headers["Authorization"] == "Bearer fresh" }.count == 50)
    }

    @Test("a credential that needs refreshing is refreshed before the first attempt is sent")
    func refreshBeforeSending() async throws {
        let refreshes = Locked(0)
        let interceptor = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(refreshes: refreshes, delay: .milliseconds(50)), credential: Token(value: "stale", expired: true))
        let stubs = Self.stubs(Self.ok)
        _ = try await Self.manager(stubs, interceptor: interceptor).get("me")
        #expect(refreshes.withLock { $0 } == 1)
        #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer fresh"])
    }

    /// A serializer of the caller's own, not one of Sluice's: the manager uses what it says.
    struct SignedSerializer: RequestSerializer {
        func serialize(_ request: HTTPRequest, with parameters: Parameters?) throws(SluiceError) -> HTTPRequest {
            var request = request
            try request.headers.set(name: "X-Signed", value: "yes")
            return request
        }
        func makeRequest(method: HTTPMethod, urlString: String, relativeTo baseURL: URL?) throws(SluiceError) -> HTTPRequest {
            var request = try HTTPRequest(urlString: urlString, relativeTo: baseURL, method: method, timeout: 7)
            request.shouldHandleCookies = false
            return request
        }
        func formFields(from parameters: Parameters) -> [FormField]? {
            [FormField(name: "payload", value: Data("\(parameters)".utf8))]
        }
    }

    @Test("a custom request serializer controls the base URL, timeout, cookies and multipart fields")
    func customSerializer() async throws {
        let manager = Self.manager(Self.stubs(Self.ok))
        manager.requestSerializer = SignedSerializer()
        let request = try manager.request(HTTPMethod.get, "items")
        #expect(request.url.absoluteString == "https://api.example.test/v1/items")
        #expect(request.timeout == 7 && !request.shouldHandleCookies && request.headers["X-Signed"] == "yes")

        let form = try manager.multipartRequest("upload", parameters: ["a": 1]) { form in
            form.appendPart(formData: Data("x".utf8), name: "file")
        }
        #expect(form.timeout == 7 && form.headers["X-Signed"] == "yes")
        let body = try Self.read(form.body)
        #expect(body.contains("name=\"payload\"") && body.contains("name=\"file\""))
        #expect(!body.contains("name=\"a\""))

        // A serializer with no opinion gets the standard rules: resolution only, fields as AFNetworking names them.
        struct Plain: RequestSerializer {
            func serialize(_ request: HTTPRequest, with parameters: Parameters?) throws(SluiceError) -> HTTPRequest { request }
        }
        manager.requestSerializer = Plain()
        let plain = try manager.multipartRequest("upload", parameters: ["user": ["name": "x"]]) { _ in }
        #expect(plain.timeout == nil && plain.url.absoluteString == "https://api.example.test/v1/upload")
        #expect(try Self.read(plain.body).contains("name=\"user[name]\""))
        let error = #expect(throws: SluiceError.self) { try manager.request(HTTPMethod.get, "http://[bad") }
        #expect(error?.code == .invalidURL)
    }

    @Test("download: a 2xx body is moved into place, a refused one leaves nothing")
    func download() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.urlMatching(".*/missing"), .status(404, body: Data("no".utf8)))
        stubs.stub(.any, .status(200, body: Data("file body".utf8)))
        let manager = Self.manager(stubs)
        let target = URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-seam-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        let progress = Locked<[TransferProgress]>([])
        let response = try await manager.download("report", to: target) { update in progress.withLock { $0.append(update) } }
        #expect(response.value == target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "file body")
        #expect(progress.withLock { $0 }.last?.bytesReceived == 9)

        let other = URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-seam-\(UUID().uuidString)")
        let error = await #expect(throws: SluiceError.self) { try await manager.download("missing", to: other) }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }

    @Test("the completion-handler API over the transport seam: the task handle is the transport's, the value arrives")
    func callbacks() async throws {
        let session = SessionManager(configuration: Self.stubs(Self.ok).configuration())
        let manager = HTTPSessionManager(
            baseURL: Self.base, transport: session, completionQueue: DispatchQueue(label: "sluice.tests.seam"))
        let value: (any Sendable)? = try await withCheckedThrowingContinuation { continuation in
            let handle = manager.GET("items", success: { task, value in
                #expect(task.currentTask is SessionTask)
                #expect(task.attempts == 1)
                continuation.resume(returning: value)
            }, failure: { _, error in continuation.resume(throwing: error) })
            #expect(handle != nil)
        }
        #expect((value as? Parameters) == ["ok": true])
    }

    @Test("a stream body through the transport seam arrives whole, chunk by chunk")
    func stream() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.any, .chunks([Data("0123".utf8), Data("4567".utf8), Data("89".utf8)]))
        let session = SessionManager(configuration: stubs.configuration())
        let exchange = try await session.exchange(HTTPRequest(url: "https://api.example.test/s"), receiving: .stream)
        guard case .stream(let chunks) = exchange.body else { Issue.record("not a stream"); return }
        var whole = Data()
        var count = 0
        for try await chunk in chunks {
            whole.append(chunk)
            count += 1
        }
        #expect(String(decoding: whole, as: UTF8.self) == "0123456789" && count == 3)
    }

    struct SerializerCase: Sendable, CustomTestStringConvertible {
        let name: String
        let answer: StubResponse
        let code: SluiceError.Code
        /// Whether the call decodes a `Decodable` (`get(_:as:)`) rather than using the JSON serializer.
        var decodes = false
        var testDescription: String { name }
    }

    static let serializerCases: [SerializerCase] = [
        SerializerCase(name: "a 500 with a JSON body", answer: .json(#"{"error":"x"}"#, statusCode: 500), code: .unacceptableStatusCode),
        SerializerCase(name: "HTML where JSON is accepted", answer: .status(200, headers: ["Content-Type": "text/html"], body: Data("<p>".utf8)),
                       code: .unacceptableContentType),
        SerializerCase(name: "a JSON content type over a broken body", answer: .json(#"{"ok": tru"#), code: .invalidJSON),
        SerializerCase(name: "JSON of another shape than the type", answer: .json(#"{"ok": "yes"}"#), code: .decodingFailed, decodes: true),
    ]

    struct OK: Decodable, Sendable { let ok: Bool }

    @Test("response serializer errors are typed and carry the response", arguments: serializerCases)
    func serializerErrors(_ row: SerializerCase) async throws {
        let stubs = Self.stubs(row.answer)
        let manager = Self.manager(stubs)
        let error = await #expect(throws: SluiceError.self) {
            if row.decodes { _ = try await manager.get("items", as: OK.self) } else { _ = try await manager.get("items") }
        }
        #expect(error?.code == row.code, "\(String(describing: error))")
        #expect(error?.response?.statusCode == row.answer.statusCode)
    }

    static func read(_ body: HTTPBody) throws -> String {
        let stream = try body.makeStream()
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
