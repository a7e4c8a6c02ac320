import Foundation
import Sluice
import SluiceCache
import SluiceTestSupport
import SluiceTesting
import Testing

/// Sessions running unchanged against stubs, through every way to send, with no server: what is
/// answered, what is recorded, and how timeouts, failures, cancellation and unmatched requests behave.
@Suite("HTTPStubs under a session, with no server")
struct HTTPStubsTests {
    static let base = "https://api.example.test/v1"

    static func session(_ stubs: HTTPStubs, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionManager {
        var configuration = SessionConfiguration()
        configure(&configuration)
        return SessionManager(configuration: stubs.configuration(configuration))
    }

    static func request(_ path: String, method: HTTPMethod = .get) -> HTTPRequest {
        HTTPRequest(url: URL(string: base + path)!, method: method)
    }

    @Test("every API form gets the stub's answer: async data, a file, a stream, a completion handler, a task, a decoded value")
    func everyForm() async throws {
        let stubs = HTTPStubs()
        let body = Data(#"{"id":7,"name":"seven"}"#.utf8)
        stubs.stub(.get("\(Self.base)/item"), .json(String(decoding: body, as: UTF8.self)))
        let session = Self.session(stubs)

        let data = try await session.data(for: Self.request("/item"))
        #expect(data.data == body)
        #expect(data.response.statusCode == 200)
        #expect(data.response.headers["Content-Type"] == "application/json")
        #expect(data.response.headers["Content-Length"] == String(body.count))
        #expect(data.metrics.source == .layer("stub"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("item.json")
        let download = try await session.download(for: Self.request("/item"), to: { _, _ in target })
        #expect(download.fileURL == target)
        #expect(try Data(contentsOf: target) == body)

        let (stream, head) = try await session.bytes(for: Self.request("/item"))
        #expect(head.statusCode == 200)
        var streamed = Data()
        for try await chunk in stream { streamed.append(chunk) }
        #expect(streamed == body)

        let handled = await withCheckedContinuation { continuation in
            session.dataTask(with: Self.request("/item")) { continuation.resume(returning: $0) }.resume()
        }
        #expect(try handled.get().data == body)

        struct Item: Decodable, Sendable { let id: Int; let name: String }
        let manager = HTTPSessionManager(baseURL: URL(string: Self.base + "/")!, configuration: stubs.configuration())
        let item = try await manager.get("item", as: Item.self)
        #expect(item.value.id == 7 && item.value.name == "seven")
        let callbackValue = await withCheckedContinuation { continuation in
            manager.GET("item", success: { _, value in continuation.resume(returning: value.map { String(describing: $0) }) },
                        failure: { _, _ in continuation.resume(returning: nil) })
        }
        #expect(callbackValue?.contains("seven") == true, "\(callbackValue ?? "nil")")
        let downloaded = try await manager.download("item", to: folder.appendingPathComponent("manager.json"))
        #expect(try Data(contentsOf: downloaded.value) == body)

        #expect(stubs.requests.count == 7)
        #expect(stubs.requests.allSatisfy { $0.description == "GET \(Self.base)/item" })
    }

    @Test("requests are recorded as sent: interceptors' and the session's headers, the serialized body, each redirect hop")
    func recordedAsSent() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.post("\(Self.base)/old"), .status(307, headers: ["Location": "\(Self.base)/new"]))
        stubs.stub(.post("\(Self.base)/new") && .jsonBody(#"{"a":1}"#), .status(201))
        var configuration = SessionConfiguration()
        try configuration.defaultHeaders.add(name: "X-Client", value: "tests")
        let adapter = Interceptor(adapt: { request, _ in
            var request = request
            try request.headers.set(name: "Authorization", value: "Bearer t")
            return request
        })
        let manager = HTTPSessionManager(
            baseURL: URL(string: Self.base + "/")!, configuration: stubs.configuration(configuration),
            registry: .bundled(), interceptor: adapter)
        manager.requestSerializer = JSONRequestSerializer()
        let response = try await manager.post("old", parameters: ["a": 1])
        #expect(response.response.statusCode == 201)
        #expect(response.metrics.redirectCount == 1)
        let recorded = stubs.requests
        #expect(recorded.map(\.description) == ["POST \(Self.base)/old", "POST \(Self.base)/new"])
        #expect(recorded.map(\.hop) == [0, 1])
        for request in recorded {
            #expect(request.headers["Authorization"] == "Bearer t")
            #expect(request.headers["X-Client"] == "tests")
            #expect(request.headers["Content-Type"]?.hasPrefix("application/json") == true)
            #expect(try request.decodedBody(as: [String: Int].self) == ["a": 1])
        }
    }

    @Test("a sequence answers in turn (503, then 200), and retries see it; times: makes a stub step aside")
    func sequences() async throws {
        let stubs = HTTPStubs()
        let flaky = stubs.stub(.get("\(Self.base)/flaky"), sequence: [.status(503), .status(503), .text("ok")])
        let once = stubs.stub(.get("\(Self.base)/once"), .status(500), times: 1)
        stubs.stub(.get("\(Self.base)/once"), .text("second"))
        let manager = HTTPSessionManager(
            baseURL: URL(string: Self.base + "/")!, configuration: stubs.configuration(), registry: .bundled(),
            interceptor: RetryPolicy(exponentialBackoffScale: .milliseconds(1)))
        manager.responseSerializer = HTTPResponseSerializer()
        let response = try await manager.get("flaky")
        #expect(response.attempts == 3)
        #expect(response.data == Data("ok".utf8))
        #expect(stubs.calls(to: flaky) == 3)
        let session = Self.session(stubs)
        #expect(try await session.data(for: Self.request("/once")).response.statusCode == 500)
        #expect(try await session.data(for: Self.request("/once")).data == Data("second".utf8))
        #expect(try await session.data(for: Self.request("/once")).data == Data("second".utf8))
        #expect(stubs.calls(to: once) == 1)
    }

    @Test("chunks arrive apart, as a stream reader and the progress see them")
    func chunksOverTime() async throws {
        let stubs = HTTPStubs()
        let parts = (0..<5).map { Data("part \($0)\n".utf8) }
        stubs.stub(.get("\(Self.base)/feed"), .chunks(parts, every: .milliseconds(40)))
        let session = Self.session(stubs)
        let started = ContinuousClock.now
        let (stream, _) = try await session.bytes(for: Self.request("/feed"))
        var received: [Data] = []
        var times: [Duration] = []
        for try await chunk in stream {
            received.append(chunk)
            times.append(ContinuousClock.now - started)
        }
        #expect(received.reduce(Data(), +) == parts.reduce(Data(), +))
        #expect(received.count == parts.count, "each chunk is read on its own")
        // The stub's pace: five chunks 40 ms apart. A lower bound: a busy machine only makes it later.
        #expect(times.last! >= .milliseconds(190))

        let counts = Locked<[Int64]>([])
        let downloaded = try await session.download(
            for: Self.request("/feed"), to: { temporary, _ in temporary },
            progress: { progress in counts.withLock { $0.append(progress.bytesReceived) } })
        unlink(downloaded.fileURL.path)
        let seen = counts.withLock { $0 }
        #expect(seen.last == Int64(parts.reduce(0) { $0 + $1.count }))
        #expect(Set(seen).count >= 3, "progress moves as chunks arrive: \(seen)")
    }

    @Test("a stub slower than the request's timeout fails it with idleTimedOut, after the timeout")
    func timeout() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.get("\(Self.base)/slow"), .text("late").delayed(by: .seconds(120)))
        stubs.stub(.get("\(Self.base)/stalls"), .chunks([Data("a".utf8), Data("b".utf8)], every: .seconds(120)))
        let session = Self.session(stubs)
        var request = Self.request("/slow")
        request.timeout = 0.2
        let started = ContinuousClock.now
        let error = await #expect(throws: SluiceError.self) { try await session.data(for: request) }
        #expect(error?.code == .idleTimedOut)
        // Far sooner than the stub's 120 s (with room for a busy machine's stalls).
        #expect(ContinuousClock.now - started < .seconds(60))

        var stalls = Self.request("/stalls")
        stalls.timeout = 0.2
        let stallError = await #expect(throws: SluiceError.self) { try await session.data(for: stalls) }
        #expect(stallError?.code == .idleTimedOut)
    }

    static let transportCodes: [SluiceError.Code] = [
        .cannotResolveHost, .cannotConnect, .connectTimedOut, .idleTimedOut, .tlsFailed, .transferTooSlow,
        .invalidResponse, .connectionLost, .resourceTimedOut, .tooManyRedirects, .untrustedChain, .hostMismatch,
        .certificateExpired, .pinnedKeyMismatch, .clientCertificateRejected,
    ]

    @Test("a stub fails with any transport error code, as the transport would", arguments: transportCodes)
    func failures(code: SluiceError.Code) async throws {
        let stubs = HTTPStubs()
        stubs.stub(.any, .failure(code))
        let error = await #expect(throws: SluiceError.self) { try await Self.session(stubs).data(for: Self.request("/x")) }
        #expect(error?.code == code)
        #expect(error?.request?.url.absoluteString == "\(Self.base)/x")
    }

    @Test("a connection lost mid-body: a stream reader gets the bytes so far, then the error; a collector gets the error")
    func lostMidBody() async throws {
        let stubs = HTTPStubs()
        let first = Data(repeating: 0x61, count: 3000)
        stubs.stub(.any, .failure(.connectionLost, after: first, headers: ["Content-Length": "10000"]))
        let session = Self.session(stubs)
        let (stream, head) = try await session.bytes(for: Self.request("/cut"))
        #expect(head.headers["Content-Length"] == "10000")
        var received = Data()
        let error = await #expect(throws: SluiceError.self) {
            for try await chunk in stream { received.append(chunk) }
        }
        #expect(error?.code == .connectionLost)
        #expect(received == first)
        let collected = await #expect(throws: SluiceError.self) { try await session.data(for: Self.request("/cut")) }
        #expect(collected?.code == .connectionLost)
    }

    @Test("an unmatched request fails, naming the closest stub and what it missed; nothing reaches the network")
    func unmatched() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.post("\(Self.base)/items"), .status(201))
        stubs.stub(.get("\(Self.base)/items") && .header("Accept", "application/json"), .json("[]"))
        let error = await #expect(throws: SluiceError.self) { try await Self.session(stubs).data(for: Self.request("/items")) }
        #expect(error?.code == .noMatchingStub)
        let message = error?.message ?? ""
        #expect(message.contains("no stub matches GET \(Self.base)/items"))
        #expect(message.contains("stub 2"), "\(message)")
        #expect(message.contains("Accept is application/json (the request has no Accept)"), "\(message)")
        #expect(stubs.requests.count == 1)

        let empty = await #expect(throws: SluiceError.self) { try await Self.session(HTTPStubs()).data(for: Self.request("/x")) }
        #expect(empty?.message.contains("none is registered") == true)
    }

    @Test("pass-through sends an unmatched request to the network (here a closed port: cannotConnect)")
    func passThrough() async throws {
        let stubs = HTTPStubs(unmatchedRequests: .passThrough)
        stubs.stub(.urlPrefix("http://127.0.0.1:9/stubbed"), .text("stubbed"))
        let session = Self.session(stubs) { $0.connectTimeout = 2 }
        #expect(try await session.data(for: HTTPRequest(url: URL(string: "http://127.0.0.1:9/stubbed")!)).data == Data("stubbed".utf8))
        let error = await #expect(throws: SluiceError.self) {
            try await session.data(for: HTTPRequest(url: URL(string: "http://127.0.0.1:9/elsewhere")!))
        }
        #expect(error?.code == .cannotConnect)
    }

    @Test("cancelling the task ends a stub's wait at once")
    func cancellation() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.any, .text("never").delayed(by: .seconds(120)))
        let session = Self.session(stubs)
        let work = Task { try await session.data(for: Self.request("/wait")) }
        // Cancelled once the stub has the request, so that it is waiting out its delay.
        try await Wait.until("the stub has the request") { !stubs.requests.isEmpty }
        let started = ContinuousClock.now
        work.cancel()
        let result = await work.result
        #expect(throws: SluiceError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let error as SluiceError) = result { #expect(error.code == .cancelled) }
        // Far sooner than the stub's 120 s (milliseconds are expected; measured from the cancel, with room for
        // a busy machine's stalls).
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test("a request body from a stream or a file is recorded and matched as bytes")
    func requestBodies() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.put("\(Self.base)/blob") && .body("hello, stubs"), .status(204))
        let session = Self.session(stubs)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-stub-body-\(UUID().uuidString)")
        try Data("hello, stubs".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try await session.upload(for: Self.request("/blob", method: .put), from: .file(path: file.path))
        #expect(fromFile.response.statusCode == 204)
        let fromStream = try await session.upload(
            for: Self.request("/blob", method: .put), from: .stream(DataBodyStream(Data("hello, stubs".utf8))))
        #expect(fromStream.response.statusCode == 204)
        let fromSequence = try await session.upload(
            for: Self.request("/blob", method: .put),
            from: .asyncSequence(length: 12) {
                AsyncThrowingStream<Data, any Error> { c in
                    c.yield(Data("hello, ".utf8))
                    c.yield(Data("stubs".utf8))
                    c.finish()
                }
            })
        #expect(fromSequence.response.statusCode == 204)
        #expect(stubs.requests.map(\.bodyText) == ["hello, stubs", "hello, stubs", "hello, stubs"])
    }

    @Test("stubs belong to their session: sessions in parallel see only their own")
    func isolation() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let stubs = HTTPStubs()
                    stubs.stub(.any, .text("session \(index)"))
                    let session = Self.session(stubs)
                    for _ in 0..<20 {
                        let answer = try await session.data(for: Self.request("/who"))
                        #expect(answer.data == Data("session \(index)".utf8))
                    }
                    #expect(stubs.requests.count == 20)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("the session's cache sits above the stubs: a fresh stored answer is served without reaching them")
    func underTheCache() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.get("\(Self.base)/cached"), .text("stored", headers: ["Cache-Control": "max-age=600"]))
        let session = Self.session(stubs) { $0.cache = HTTPCache(store: MemoryCacheStore()) }
        #expect(try await session.data(for: Self.request("/cached")).metrics.source == .layer("stub"))
        let second = try await session.data(for: Self.request("/cached"))
        #expect(second.metrics.source == .cache)
        #expect(second.data == Data("stored".utf8))
        #expect(stubs.requests.count == 1)
    }

    @Test("HEAD, 204 and 304 answers carry no body")
    func bodilessAnswers() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.method(.head), .text("ignored"))
        stubs.stub(.get("\(Self.base)/none"), .status(204, body: Data("ignored".utf8)))
        let session = Self.session(stubs)
        let head = try await session.data(for: Self.request("/x", method: .head))
        #expect(head.data.isEmpty)
        #expect(head.response.headers["Content-Length"] == "7")
        #expect(try await session.data(for: Self.request("/none")).data.isEmpty)
    }
}
