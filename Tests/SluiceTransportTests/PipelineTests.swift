import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

/// A layer that counts the requests it sees and passes them on.
final class CountingLayer: HTTPLayer {
    private let seen = Locked<[HTTPRequest]>([])

    var requests: [HTTPRequest] { seen.withLock { $0 } }
    var count: Int { requests.count }
    func reset() { seen.withLock { $0.removeAll() } }

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
        seen.withLock { $0.append(request) }
        return try await next(request, context: context)
    }
}

/// One way to send a request through a session: the rows of the pipeline's tables. Each sends the
/// request once and returns the response body as its caller got it.
struct SendingForm: Sendable, CustomStringConvertible {
    let description: String
    let send: @Sendable (_ session: SessionManager, _ request: HTTPRequest) async throws -> Data

    init(_ description: String, _ send: @escaping @Sendable (SessionManager, HTTPRequest) async throws -> Data) {
        self.description = description
        self.send = send
    }

    /// A temporary file holding `bytes`.
    static func file(_ bytes: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pipeline-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A destination in the temporary directory.
    static let destination: DownloadDestination = { _, _ in
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pipeline-\(UUID().uuidString)")
    }

    /// The bytes of a downloaded file, which is removed.
    static func taken(_ url: URL) throws -> Data {
        defer { unlink(url.path) }
        return try Data(contentsOf: url)
    }

    /// Every API form of the session, each sending the given request once.
    static let all: [SendingForm] = [
        SendingForm("data(for:)") { session, request in try await session.data(for: request).data },
        SendingForm("upload bytes") { session, request in
            var request = request
            request.method = .post
            return try await session.upload(for: request, from: .bytes(Data("abc".utf8))).data
        },
        SendingForm("upload file") { session, request in
            var request = request
            request.method = .post
            let path = try file(Data("file body".utf8))
            defer { unlink(path) }
            return try await session.upload(for: request, from: .file(path: path)).data
        },
        SendingForm("upload stream") { session, request in
            var request = request
            request.method = .post
            return try await session.upload(for: request, from: .stream(DataBodyStream(Data("stream body".utf8)))).data
        },
        SendingForm("download(for:to:)") { session, request in
            try taken(try await session.download(for: request, to: destination).fileURL)
        },
        SendingForm("download(resumingWith:)") { session, request in
            // Resume data for a partial file of 0 bytes: the resumed download asks from the start.
            let partial = try file(Data())
            let resume = ResumeData(url: request.url, headers: [:], partialFilePath: partial, validator: nil)
            return try taken(try await session.download(resumingWith: resume, to: destination).fileURL)
        },
        SendingForm("bytes(for:)") { session, request in
            let (stream, _) = try await session.bytes(for: request)
            var data = Data()
            for try await chunk in stream { data += chunk }
            return data
        },
        SendingForm("dataTask") { session, request in
            try await withCheckedThrowingContinuation { continuation in
                session.dataTask(with: request) { continuation.resume(with: $0) }.resume()
            }.data
        },
        SendingForm("uploadTask") { session, request in
            var request = request
            request.method = .post
            return try await withCheckedThrowingContinuation { continuation in
                session.uploadTask(with: request, from: .bytes(Data("abc".utf8))) { continuation.resume(with: $0) }.resume()
            }.data
        },
        SendingForm("downloadTask") { session, request in
            try taken(try await withCheckedThrowingContinuation { continuation in
                session.downloadTask(with: request, to: destination) { continuation.resume(with: $0) }.resume()
            }.fileURL)
        },
        SendingForm("exchange into memory") { session, request in
            try await session.exchange(request, receiving: .memory).body.data ?? Data()
        },
        SendingForm("exchange into a file") { session, request in
            try taken(try #require(try await session.exchange(request, receiving: .file(destination)).body.fileURL))
        },
        SendingForm("exchange as a stream") { session, request in
            var data = Data()
            if case .stream(let stream) = try await session.exchange(request, receiving: .stream).body {
                for try await chunk in stream { data += chunk }
            }
            return data
        },
    ]
}

/// A layer that answers every request itself, with a body in the form given.
struct AnsweringLayer: HTTPLayer {
    enum Form: String, CaseIterable, Sendable { case bytes, file, stream }

    /// A file removed when the last copy of the layer that owns it is gone.
    final class OwnedFile: Sendable {
        let path: String
        init(_ bytes: Data) throws { path = try SendingForm.file(bytes) }
        deinit { unlink(path) }
    }

    let form: Form
    let body: Data
    private let file: OwnedFile
    /// The file a `.file` answer reads (the layer's own: the session must leave it in place).
    var path: String { file.path }

    init(form: Form, body: Data) throws {
        self.form = form
        self.body = body
        file = try OwnedFile(body)
    }

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
        let answer: HTTPLayerBody = switch form {
        case .bytes: .data(body)
        case .file: .file(URL(fileURLWithPath: path))
        case .stream: .stream(ResponseBodyStream(chunks: stride(from: 0, to: body.count, by: 1000).map { body[$0..<min($0 + 1000, body.count)] }))
        }
        var headers = HTTPHeaders()
        try? headers.set(name: "Content-Type", value: "application/octet-stream")
        return HTTPLayerResponse(
            request: request, response: HTTPResponse(statusCode: 200, headers: headers, url: request.url), body: answer,
            source: .layer("stub"))
    }
}

/// Records what a session's event monitor hears.
final class RecordingMonitor: EventMonitor {
    let events = Locked<[String]>([])
    let metrics = Locked<[TaskMetrics]>([])
    /// Sent once the first completion has been recorded.
    let completed = TestSignal<Void>()

    func taskDidResume(_ task: SessionTask) { events.withLock { $0.append("resume") } }
    func taskDidComplete(_ task: SessionTask, error: SluiceError?, metrics: TaskMetrics?) {
        events.withLock { $0.append(error.map { "complete \($0.code)" } ?? "complete") }
        if let metrics { self.metrics.withLock { $0.append(metrics) } }
        completed.send()
    }
    func task(_ task: SessionTask, willSend request: HTTPRequest, hop: Int) { events.withLock { $0.append("send \(hop)") } }
    func task(_ task: SessionTask, didReceive response: HTTPResponse, for request: HTTPRequest, from source: ResponseSource, hop: Int) {
        events.withLock { $0.append("receive \(hop) \(response.statusCode) from \(source)") }
        sent.withLock { $0.append(request) }
    }
    let sent = Locked<[HTTPRequest]>([])
}

extension TransportSuites {
    @Suite("The pipeline: one chain of layers under every API")
    struct PipelineTests {
        /// A session with a counting layer at the top and one above the network.
        static func countingSession(
            _ adjust: (inout SessionConfiguration) -> Void = { _ in }
        ) throws -> (SessionManager, top: CountingLayer, network: CountingLayer) {
            let (top, network) = (CountingLayer(), CountingLayer())
            let session = try Transport.session {
                $0.layers = [top]
                $0.networkLayers = [network]
                adjust(&$0)
            }
            return (session, top, network)
        }

        @Test("each API form sends one request through the layers: one hop, or four for three redirects", .tags(.server), .needsServers, arguments: SendingForm.all)
        func everyFormThroughTheChain(form: SendingForm) async throws {
            let (session, top, network) = try Self.countingSession()
            let direct = try Transport.request(.httpbin, "/anything/pipeline")
            _ = try await form.send(session, direct)
            #expect(top.count == 1)
            #expect(network.count == 1)
            #expect(network.requests.first?.url.path == "/anything/pipeline")

            top.reset()
            network.reset()
            // /redirect/3 is three 302s to /get (GET only); the upload forms go through three 307s, which
            // keep the method and the body.
            if form.description.hasPrefix("upload") {
                var path = "/anything/pipeline"
                for _ in 0..<3 {
                    path = "/redirect-to?status_code=307&url=" + path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                }
                _ = try await form.send(session, Transport.request(.httpbin, path))
            } else {
                _ = try await form.send(session, Transport.request(.httpbin, "/redirect/3"))
            }
            #expect(top.count == 1, "the top layer sees the call once")
            #expect(network.count == 4, "the network layer sees the request and three redirects")
        }

        @Test("a 401 answered by the challenge handler is a second hop, seen by the network layer only", .tags(.server), .needsServers, arguments: SendingForm.all.filter { $0.description != "bytes(for:)" && $0.description != "exchange as a stream" })
        func challengeRound(form: SendingForm) async throws {
            let (session, top, network) = try Self.countingSession {
                $0.authenticationChallengeHandler = { _, _ in Credential(user: "user", password: "passwd", schemes: [.basic]) }
            }
            // httpbin's /basic-auth takes GET only; /status/401 answers any method with a challenge (and
            // again after the credential: the handler is asked once).
            let path = form.description.hasPrefix("upload") ? "/status/401" : "/basic-auth/user/passwd"
            _ = try await form.send(session, Transport.request(.httpbin, path))
            #expect(top.count == 1)
            #expect(network.count == 2)
        }

        @Test("a layer answering from bytes, a file or a stream serves every API form without a socket", arguments: SendingForm.all, AnsweringLayer.Form.allCases)
        func answeredWithoutNetwork(form: SendingForm, answer: AnsweringLayer.Form) async throws {
            let server = try RawTCPServer(reply: .bytes(Data("HTTP/1.1 500 Not Me\r\nContent-Length: 0\r\n\r\n".utf8)))
            defer { server.stop() }
            let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let layer = try AnsweringLayer(form: answer, body: body)
            let monitor = RecordingMonitor()
            let session = SessionManager(
                configuration: {
                    var configuration = SessionConfiguration()
                    configuration.layers = [layer]
                    return configuration
                }(), eventMonitors: [monitor])
            let received = try await form.send(session, HTTPRequest(url: server.url.appendingPathComponent("answered")))
            #expect(received == body)
            #expect(server.acceptedConnections == 0, "no socket was opened")
            #expect(FileManager.default.fileExists(atPath: layer.path), "the layer's own file stays")
            // The task completed as any other, its metrics saying where the answer came from.
            // (A stream's task completes once its end has been read, from the engine's side.)
            try await monitor.completed.value("the event monitor hears the task complete")
            let metrics = try #require(monitor.metrics.withLock { $0.first })
            #expect(metrics.source == .layer("stub"))
            #expect(metrics.transactions.count == 1)
            #expect(monitor.events.withLock { $0 } == ["resume", "complete"])
            #expect(session.tasks.isEmpty)
        }

        @Test("a layer's answer reports progress, metrics and hop events like the network's")
        func answeredTaskIsATask() async throws {
            let body = Data(repeating: 7, count: 300_000)
            let monitor = RecordingMonitor()
            let (top, network) = (CountingLayer(), CountingLayer())
            let session = SessionManager(
                configuration: {
                    var configuration = SessionConfiguration()
                    configuration.layers = [top]
                    configuration.networkLayers = [network]
                    configuration.cache = try! AnsweringLayer(form: .stream, body: body)
                    return configuration
                }(), eventMonitors: [monitor])
            let reports = Locked<[TransferProgress]>([])
            let task = Locked<SessionTask?>(nil)
            let response = try await session.download(
                for: HTTPRequest(url: "http://127.0.0.1:9/cached"), to: SendingForm.destination,
                didCreateTask: { created in task.withLock { $0 = created } }, progress: { report in reports.withLock { $0.append(report) } })
            defer { unlink(response.fileURL.path) }
            #expect(try Data(contentsOf: response.fileURL) == body)
            #expect(top.count == 1)
            #expect(network.count == 0, "the cache slot answered above the network layers")
            #expect(response.metrics.source == .layer("stub"))
            #expect(reports.withLock { $0.last?.bytesReceived } == 300_000)
            #expect(reports.withLock { $0.count } > 1, "progress as the chunks were delivered")
            let finished = try #require(task.withLock { $0 })
            #expect(finished.state == .completed)
            #expect(finished.downloadProgress.completedUnitCount == 300_000)
            #expect(finished.response?.statusCode == 200)
            #expect(monitor.events.withLock { $0 } == ["resume", "send 0", "receive 0 200 from layer stub", "complete"])
        }

        @Test("a stream answered by a layer can be cancelled midway")
        func layerStreamCancelled() async throws {
            struct EndlessLayer: HTTPLayer {
                func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
                    let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                        let producer = Task {
                            while !Task.isCancelled {
                                continuation.yield(Data(repeating: 1, count: 100))
                                // A slow endless producer (the behaviour: a body with no end of its own).
                                try? await Task.sleep(for: .milliseconds(5))
                            }
                        }
                        continuation.onTermination = { _ in producer.cancel() }
                    }
                    return HTTPLayerResponse(
                        request: request, response: HTTPResponse(statusCode: 200), body: .stream(ResponseBodyStream(chunks)))
                }
            }
            let session = SessionManager(configuration: {
                var configuration = SessionConfiguration()
                configuration.layers = [EndlessLayer()]
                return configuration
            }())
            let (stream, response) = try await session.bytes(for: HTTPRequest(url: "http://127.0.0.1:9/endless"))
            #expect(response.statusCode == 200)
            let task = try #require(session.tasks.first)
            var iterator = stream.makeAsyncIterator()
            var read = 0
            while read < 1_000, let chunk = try await iterator.next() { read += chunk.count }
            task.cancel()
            let error = await #expect(throws: SluiceError.self) { while try await iterator.next() != nil {} }
            #expect(error?.code == .cancelled)
            try await Wait.until("the cancelled task completes") { task.state == .completed }
            #expect(task.state == .completed)
            #expect(task.error?.code == .cancelled)
        }

        @Test("an exchange's didComplete has the metrics of every destination, a stream's once it has ended", .tags(.server), .needsServers)
        func endOfBodyWithMetrics() async throws {
            let session = try Transport.session()
            for destination in ["memory", "file", "stream"] {
                let ended = TestSignal<Result<TaskMetrics, SluiceError>>()
                let events = TransportEvents(didComplete: { result in ended.send(result) })
                let request = try Transport.request(.httpbin, "/redirect/1")
                switch destination {
                case "memory":
                    _ = try await session.exchange(request, receiving: .memory, events: events)
                case "file":
                    let exchange = try await session.exchange(request, receiving: .file(SendingForm.destination), events: events)
                    if let url = exchange.body.fileURL { unlink(url.path) }
                default:
                    let exchange = try await session.exchange(request, receiving: .stream, events: events)
                    guard case .stream(let stream) = exchange.body else { throw SluiceError(.transportFailed, "no stream") }
                    for try await _ in stream {}
                    // A stream's didComplete comes once its end has been read, from the engine's side.
                    try await ended.value("didComplete of the stream's exchange once the stream has ended")
                }
                // Memory and file: didComplete came before the exchange returned.
                let metrics = try #require(try ended.sentValue?.get(), "\(destination)")
                #expect(metrics.transactions.count == 2, "\(destination): the redirect and the answer")
                #expect(metrics.transactions.allSatisfy { $0.source == .network && $0.statusCode > 0 })
            }
        }

        @Test("a body stream sent again after a 307 answered mid-body is read by one reader at a time, from its first byte", .tags(.server), .needsServers)
        func bodyReadAcrossHops() async throws {
            /// A rewindable body of `total` bytes read slowly, counting reads that overlap.
            final class OverlapCountingBody: BodyStream {
                let total = 1 << 20
                let state = Locked((position: 0, reading: 0, overlaps: 0))
                var contentLength: Int64? { Int64(total) }
                var isRewindable: Bool { true }
                func rewind() throws(SluiceError) { state.withLock { $0.position = 0 } }
                func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                    let start = state.withLock { state -> Int in
                        state.reading += 1
                        if state.reading > 1 { state.overlaps += 1 }
                        return state.position
                    }
                    // Read slowly (the behaviour: the 307 must come while the body is still being sent).
                    Thread.sleep(forTimeInterval: 0.002)
                    let count = min(buffer.count, 16 * 1024, total - start)
                    for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: (start + index) &* 31) }
                    state.withLock { state in
                        state.position = start + count
                        state.reading -= 1
                    }
                    return count
                }
            }
            let session = try Transport.session()
            for _ in 0..<3 {
                let body = OverlapCountingBody()
                let expected = Data((0..<body.total).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                // httpbin answers the 307 at once, while the body is still being sent.
                var request = try Transport.request(
                    .httpbin, "/redirect-to?url=%2Fsluice%2Fdecoded-sha256&status_code=307", method: .post)
                request.body = .stream(body)
                let result = try await session.data(for: request)
                let json = try Transport.json(result.data)
                #expect(json["decoded"] as? Int == body.total)
                #expect(try await json["sha256"] as? String == FileDigest.sha256(of: expected))
                #expect(body.state.withLock { $0.overlaps } == 0, "two hops read the stream at once")
            }
        }

        @Test("a Basic-only credential is a header the layers below the bridge see; one allowing Digest stays libcurl's", .tags(.server), .needsServers)
        func basicCredentialAsHeader() async throws {
            for (schemes, expected) in [([Credential.Scheme.basic], "Basic dXNlcjpwYXNzd2Q="), ([.basic, .digest], nil)] {
                let (session, _, network) = try Self.countingSession {
                    $0.credential = Credential(user: "user", password: "passwd", schemes: Set(schemes))
                }
                let response = try await session.data(for: Transport.request(.httpbin, "/basic-auth/user/passwd"))
                #expect(response.response.statusCode == 200)
                #expect(network.requests.first?.headers["Authorization"] == expected)
                // Not to another origin: a redirect away drops it.
                network.reset()
                let away = try await session.data(for: Transport.request(
                    .httpbin, "/redirect-to?url=http%3A%2F%2Flocalhost%3A\(try TestEnvironment.url(for: .httpbin).port!)%2Fheaders"))
                #expect(away.response.statusCode == 200)
                #expect(network.requests.last?.headers["Authorization"] == nil)
            }
        }

        @Test("event monitors hear each hop's request as sent and where its answer came from", .tags(.server), .needsServers)
        func hopEventsAsSent() async throws {
            let monitor = RecordingMonitor()
            var configuration = try Transport.configuration()
            try configuration.defaultHeaders.set(name: "X-Default", value: "1")
            let session = SessionManager(configuration: configuration, eventMonitors: [monitor])
            _ = try await session.data(for: Transport.request(.httpbin, "/redirect/2"))
            #expect(monitor.events.withLock { $0.filter { $0.hasPrefix("send") || $0.hasPrefix("receive") } } == [
                "send 0", "receive 0 302 from network", "send 1", "receive 1 302 from network", "send 2", "receive 2 200 from network",
            ])
            let sent = monitor.sent.withLock { $0 }
            #expect(sent.map(\.url.path) == ["/redirect/2", "/relative-redirect/1", "/get"])
            #expect(sent.allSatisfy { $0.headers["X-Default"] == "1" }, "the bridge's headers are in the request as sent")
        }
    }
}
