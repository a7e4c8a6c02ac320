import Foundation
import Sluice
import Testing

/// The manager's own logic over a scripted transport: adaptation order, retry decisions, credential
/// refresh, what a custom request serializer controls, downloads and tasks. No socket is opened; the
/// end-to-end versions of these run against the real servers in the other suites.
@Suite("HTTPSessionManager over a scripted transport")
struct TransportSeamTests {
    static let base = URL(string: "https://api.example.test/v1")!

    static func manager(_ transport: ScriptedTransport, interceptor: (any RequestInterceptor)? = nil) -> HTTPSessionManager {
        HTTPSessionManager(
            baseURL: base, transport: transport, interceptor: interceptor,
            completionQueue: DispatchQueue(label: "sluice.tests.seam"))
    }

    static let ok = ScriptedTransport.Answer.respond(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"ok":true}"#.utf8))

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
        let transport = ScriptedTransport { _, index in index < 2 ? .respond(status: 503) : Self.ok }
        let interceptor = Interceptor(
            adapters: [Tag(name: "a"), Tag(name: "b"), Tag(name: "c")],
            retriers: [RetryPolicy(exponentialBackoffScale: .milliseconds(1))])
        let response = try await Self.manager(transport, interceptor: interceptor).get("items")
        #expect(response.attempts == 3)
        #expect(transport.requests.map { $0.headers["X-Order"] } == ["a,b,c", "a,b,c", "a,b,c"])
        #expect(transport.requests.allSatisfy { $0.url.absoluteString == "https://api.example.test/v1/items" })
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
        let transport = ScriptedTransport { _, _ in .respond(status: 500) }
        let manager = Self.manager(transport, interceptor: Interceptor(interceptors: [first, second]))
        let error = await #expect(throws: SluiceError.self) { try await manager.get("items") }
        #expect(error?.response?.statusCode == 500)
        #expect(error?.attempts == 2)
        #expect(transport.requests.map { $0.headers["X-Order"] } == ["first,second", "first,second"])
        #expect(consulted.withLock { $0 } == ["first", "second", "first", "second"])
    }

    /// One retry case: what the transport answers each attempt, the method, and what must happen.
    struct RetryCase: Sendable, CustomTestStringConvertible {
        let name: String
        let method: HTTPMethod
        let answers: [ScriptedTransport.Answer]
        let attempts: Int
        let succeeds: Bool
        var testDescription: String { name }
    }

    static let retryCases: [RetryCase] = [
        RetryCase(name: "503 twice, then 200: three attempts", method: .get,
                  answers: [.respond(status: 503), .respond(status: 503), Self.ok], attempts: 3, succeeds: true),
        RetryCase(name: "a connection failure, then 200", method: .get,
                  answers: [.fail(.cannotConnect), Self.ok], attempts: 2, succeeds: true),
        RetryCase(name: "POST is not idempotent: one attempt", method: .post,
                  answers: [.respond(status: 503), Self.ok], attempts: 1, succeeds: false),
        RetryCase(name: "404 is not retried", method: .get, answers: [.respond(status: 404), Self.ok], attempts: 1, succeeds: false),
        RetryCase(name: "the limit: 2 retries, so 3 attempts", method: .get,
                  answers: Array(repeating: .respond(status: 502), count: 5), attempts: 3, succeeds: false),
        RetryCase(name: "Retry-After: 0 is honoured", method: .get,
                  answers: [.respond(status: 503, headers: ["Retry-After": "0"]), Self.ok], attempts: 2, succeeds: true),
        RetryCase(name: "a Retry-After over the maximum gives up", method: .get,
                  answers: [.respond(status: 503, headers: ["Retry-After": "3600"]), Self.ok], attempts: 1, succeeds: false),
        RetryCase(name: "a cancellation is never retried", method: .get,
                  answers: [.fail(.cancelled), Self.ok], attempts: 1, succeeds: false),
    ]

    @Test("retry decisions, attempt by attempt", arguments: retryCases)
    func retryDecisions(_ retry: RetryCase) async throws {
        let transport = ScriptedTransport { _, index in retry.answers[min(index, retry.answers.count - 1)] }
        let policy = RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(1), maximumRetryAfter: .seconds(5))
        let manager = Self.manager(transport, interceptor: policy)
        do throws(SluiceError) {
            let response = try await manager.send(manager.request(retry.method, "items"), serializer: JSONResponseSerializer())
            #expect(retry.succeeds)
            #expect(response.attempts == retry.attempts)
        } catch {
            #expect(!retry.succeeds, "\(error)")
            #expect(error.attempts == retry.attempts)
        }
        #expect(transport.requests.count == retry.attempts)
    }

    @Test("50 concurrent requests refused with 401: one refresh, every request then succeeds with the new token")
    func singleRefresh() async throws {
        let refreshes = Locked(0)
        let interceptor = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(refreshes: refreshes, delay: .milliseconds(50)), credential: Token(value: "stale"))
        let transport = ScriptedTransport { request, _ in
            request.headers["Authorization"] == "Bearer fresh" ? Self.ok : .respond(status: 401)
        }
        let manager = Self.manager(transport, interceptor: interceptor)
        let attempts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.get("me").attempts } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(attempts.count == 50 && attempts.allSatisfy { $0 <= 2 })
        #expect(refreshes.withLock { $0 } == 1)
        #expect(transport.requests.filter { $0.headers["Authorization"] == "Bearer fresh" }.count == 50)
    }

    @Test("a credential that needs refreshing is refreshed before the first attempt is sent")
    func refreshBeforeSending() async throws {
        let refreshes = Locked(0)
        let interceptor = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(refreshes: refreshes, delay: .milliseconds(50)), credential: Token(value: "stale", expired: true))
        let transport = ScriptedTransport { _, _ in Self.ok }
        _ = try await Self.manager(transport, interceptor: interceptor).get("me")
        #expect(refreshes.withLock { $0 } == 1)
        #expect(transport.requests.map { $0.headers["Authorization"] } == ["Bearer fresh"])
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
        let transport = ScriptedTransport { _, _ in Self.ok }
        let manager = Self.manager(transport)
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

    @Test("download through the seam: a 2xx body is moved into place, a refused one leaves nothing")
    func download() async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.path.hasSuffix("missing") ? .respond(status: 404, body: Data("no".utf8))
                : .respond(status: 200, body: Data("file body".utf8))
        }
        let manager = Self.manager(transport)
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

    @Test("the completion-handler API: the task handle is the transport's, the value arrives on the queue given")
    func callbacks() async throws {
        let transport = ScriptedTransport { _, _ in Self.ok }
        let manager = Self.manager(transport)
        let value: (any Sendable)? = try await withCheckedThrowingContinuation { continuation in
            let handle = manager.GET("items", success: { task, value in
                #expect(task.currentTask is ScriptedTransport.ScriptedTask)
                #expect(task.attempts == 1)
                continuation.resume(returning: value)
            }, failure: { _, error in continuation.resume(throwing: error) })
            #expect(handle != nil)
        }
        #expect((value as? Parameters) == ["ok": true])
        #expect(manager.session == nil)
    }

    @Test("a stream body through the seam arrives whole, chunk by chunk")
    func stream() async throws {
        let transport = ScriptedTransport { _, _ in .respond(status: 200, body: Data("0123456789".utf8)) }
        let exchange = try await transport.exchange(HTTPRequest(url: "https://api.example.test/s"), receiving: .stream)
        guard case .stream(let chunks) = exchange.body else { Issue.record("not a stream"); return }
        var whole = Data()
        var count = 0
        for try await chunk in chunks {
            whole.append(chunk)
            count += 1
        }
        #expect(String(decoding: whole, as: UTF8.self) == "0123456789" && count == 3)
        #expect(exchange.metrics == nil)
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
