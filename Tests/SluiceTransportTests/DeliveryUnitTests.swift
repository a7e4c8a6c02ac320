import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// The pieces a body goes through on its way to the caller, without a socket: the download file's
/// decisions on a resumed download, the stream buffer between the engine and its reader, the bodies
/// layers answer with, the pipeline's steps and the questions put to the caller's code.
@Suite("Body delivery and the pipeline's parts, without a socket")
struct DeliveryUnitTests {
    static func head(_ status: Int, _ fields: [String] = [], length: Int64? = nil) -> ResponseHead {
        var lines: [UInt8] = []
        for field in fields { lines += Array(field.utf8) + [0x0A] }
        return ResponseHead(
            statusCode: status, httpVersion: .http1_1, url: URL(string: "https://a.example/f")!, fieldLines: lines,
            expectedContentLength: length, contentEncoding: nil, hasLocation: false)
    }

    static func file(_ bytes: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-unit-\(UUID().uuidString)").path
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func write(_ sink: FileSink, _ text: String) throws {
        try Data(text.utf8).withUnsafeBytes { bytes in Result { () throws(SluiceError) in try sink.write(bytes) } }.get()
    }

    // MARK: The download's file on a resumed download

    @Test("a 206 from where the file ends is appended to it")
    func continued() throws {
        let path = try Self.file("0123")
        defer { unlink(path) }
        let sink = FileSink(path: path, resumeOffset: 4)
        try sink.begin(Self.head(206, ["Content-Range: bytes 4-7/8"]))
        try Self.write(sink, "4567")
        sink.closeFile()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "01234567")
        #expect(sink.continuedPartialFile)
        #expect(sink.bytesAlreadyHeld == 4)
    }

    @Test("a 206 from another byte fails and leaves the partial file as it was, kept")
    func wrongStart() throws {
        let path = try Self.file("0123")
        defer { unlink(path) }
        let sink = FileSink(path: path, resumeOffset: 4)
        let error = #expect(throws: SluiceError.self) { try sink.begin(Self.head(206, ["Content-Range: bytes 2-7/8"])) }
        #expect(error?.code == .downloadFailed)
        #expect(sink.keepsPartialFile)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "0123")
    }

    @Test("a 200 to a resumed download starts the file over")
    func startsOver() throws {
        let path = try Self.file("0123")
        defer { unlink(path) }
        let sink = FileSink(path: path, resumeOffset: 4)
        try sink.begin(Self.head(200))
        try Self.write(sink, "whole")
        sink.closeFile()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "whole")
        #expect(!sink.continuedPartialFile)
    }

    @Test("a 416 saying the file is whole discards the body and keeps the file")
    func alreadyWhole() throws {
        let path = try Self.file("0123")
        defer { unlink(path) }
        let sink = FileSink(path: path, resumeOffset: 4)
        try sink.begin(Self.head(416, ["Content-Range: bytes */4"]))
        try Self.write(sink, "error page")
        sink.closeFile()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "0123")
        #expect(sink.continuedPartialFile)
    }

    @Test("an error status goes to a file of its own; the partial file stays for another try")
    func errorStatusApart() throws {
        let path = try Self.file("0123")
        defer { unlink(path) }
        let sink = FileSink(path: path, resumeOffset: 4)
        try sink.begin(Self.head(503))
        try Self.write(sink, "busy")
        sink.closeFile()
        #expect(sink.path != path)
        #expect(try String(contentsOfFile: sink.path, encoding: .utf8) == "busy")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "0123")
        unlink(sink.path)
    }

    @Test("frozen for resume data: the length is what was written, and every later write is refused")
    func frozen() throws {
        let path = FileSink.temporaryPath()
        defer { unlink(path) }
        let sink = FileSink(path: path, resumeOffset: 0)
        try sink.begin(Self.head(200))
        try Self.write(sink, "abc")
        let frozen = try #require(sink.freezeForResume())
        #expect(frozen.length == 3)
        #expect(sink.freezeForResume() == nil, "once")
        let error = #expect(throws: SluiceError.self) { try Self.write(sink, "d") }
        #expect(error?.code == .cancelled)
        sink.closeFile()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "abc")
    }

    @Test("an error status's body cannot be resumed")
    func errorStatusNotResumable() throws {
        let sink = FileSink(path: FileSink.temporaryPath(), resumeOffset: 0)
        try sink.begin(Self.head(404))
        #expect(sink.freezeForResume() == nil)
        sink.closeFile()
        unlink(sink.path)
    }

    // MARK: The stream buffer

    @Test("chunks arrive in order, then the end")
    func streamInOrder() async throws {
        let buffer = StreamBuffer(limit: 1 << 20, resumeTransfer: {}, cancelTransfer: {})
        for text in ["a", "bc", "def"] { Data(text.utf8).withUnsafeBytes { buffer.append($0) } }
        buffer.finish(nil)
        var received: [String] = []
        while let chunk = try await buffer.next() { received.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(received == ["a", "bc", "def"])
    }

    @Test("full at the limit; the transfer is resumed once the reader took half")
    func streamPauses() async throws {
        let resumed = Locked(0)
        let buffer = StreamBuffer(limit: 4, resumeTransfer: { resumed.withLock { $0 += 1 } }, cancelTransfer: {})
        Data("ab".utf8).withUnsafeBytes { buffer.append($0) }
        #expect(!buffer.pauseIfFull())
        Data("cd".utf8).withUnsafeBytes { buffer.append($0) }
        #expect(buffer.pauseIfFull())
        #expect(buffer.isFull)
        _ = try await buffer.next()
        #expect(resumed.withLock { $0 } == 1)
    }

    @Test("a reader that keeps pace a few chunks behind: what it read is let go at once")
    func streamLetsReadChunksGo() async throws {
        let buffer = StreamBuffer(limit: 1 << 20, resumeTransfer: {}, cancelTransfer: {})
        let chunk = Data(count: 1024)
        for _ in 0..<3 { chunk.withUnsafeBytes { buffer.append($0) } }
        var most = 0
        for _ in 0..<500 {
            chunk.withUnsafeBytes { buffer.append($0) }
            _ = try await buffer.next()
            most = max(most, buffer.heldBytes)
        }
        // Three or four unread chunks; never the 500 read (the list emptied only when the reader caught up).
        #expect(most <= 4 * 1024, "\(most) bytes held")
    }

    @Test("an error ends the reading with that error, after the chunks already in")
    func streamFails() async throws {
        let buffer = StreamBuffer(limit: 1 << 20, resumeTransfer: {}, cancelTransfer: {})
        Data("x".utf8).withUnsafeBytes { buffer.append($0) }
        buffer.finish(SluiceError(.connectionLost, "gone"))
        #expect(try await buffer.next() == Data("x".utf8))
        let error = await #expect(throws: SluiceError.self) { try await buffer.next() }
        #expect(error?.code == .connectionLost)
    }

    @Test("the caller's stream dropped before its end cancels the transfer; a view of it does not")
    func streamDropped() {
        let cancelled = Locked(0)
        let buffer = StreamBuffer(limit: 16, resumeTransfer: {}, cancelTransfer: { cancelled.withLock { $0 += 1 } })
        do { _ = ByteStream(buffer: buffer, cancelsWhenDropped: false) }
        #expect(cancelled.withLock { $0 } == 0)
        do { _ = ByteStream(buffer: buffer) }
        #expect(cancelled.withLock { $0 } == 1)
    }

    @Test("observers of a streamed body see each chunk as the reader takes it, then the end")
    func streamObserved() async throws {
        let seen = Locked<[String]>([])
        let body = HTTPLayerBody.data(Data()).observed(
            onChunk: { chunk in seen.withLock { $0.append(String(decoding: chunk, as: UTF8.self)) } },
            onEnd: { result in seen.withLock { $0.append((try? result.get()) != nil ? "end" : "failed") } })
        let buffer = StreamBuffer(limit: 1 << 20, resumeTransfer: {}, cancelTransfer: {})
        buffer.observe(body)
        Data("one".utf8).withUnsafeBytes { buffer.append($0) }
        buffer.finish(nil)
        while try await buffer.next() != nil {}
        #expect(seen.withLock { $0 } == ["one", "end"])
    }

    // MARK: Bodies layers answer with

    @Test("a whole body, a file and a stream give the same bytes, counted as they go")
    func bodyForms() async throws {
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0) })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-unit-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let chunks = stride(from: 0, to: bytes.count, by: 100_000).map { bytes[$0..<min($0 + 100_000, bytes.count)] }
        for body in [HTTPLayerBody.data(bytes), .file(URL(fileURLWithPath: path)), .stream(ResponseBodyStream(chunks: chunks))] {
            let counted = Locked(0)
            let collected = try await body.collected(limit: Int.max) { count, _ in counted.withLock { $0 += count } }
            #expect(collected == bytes)
            #expect(counted.withLock { $0 } == bytes.count)
        }
    }

    @Test("a file that cannot be read is downloadFailed, and the observers hear of it")
    func missingFile() async {
        let ended = Locked<SluiceError.Code?>(nil)
        let body = HTTPLayerBody.file(URL(fileURLWithPath: "/nonexistent/sluice")).observed(
            onChunk: { _ in }, onEnd: { result in if case .failure(let error) = result { ended.withLock { $0 = error.code } } })
        let error = await #expect(throws: SluiceError.self) { try await body.collected(limit: 10) { _, _ in } }
        #expect(error?.code == .downloadFailed)
        #expect(ended.withLock { $0 } == .downloadFailed)
    }

    @Test("a body longer than the limit is refused")
    func overLimit() async {
        let error = await #expect(throws: SluiceError.self) {
            try await HTTPLayerBody.data(Data(count: 11)).observed(onChunk: { _ in }, onEnd: { _ in }).collected(limit: 10) { _, _ in }
        }
        #expect(error?.code == .downloadFailed)
    }

    @Test("every observer sees every part, in the order they were added")
    func observersInOrder() async throws {
        let seen = Locked<[String]>([])
        let body = HTTPLayerBody.stream(ResponseBodyStream(chunks: [Data("a".utf8), Data("b".utf8)]))
            .observed(onChunk: { chunk in seen.withLock { $0.append("1" + String(decoding: chunk, as: UTF8.self)) } }, onEnd: { _ in seen.withLock { $0.append("1.") } })
            .observed(onChunk: { chunk in seen.withLock { $0.append("2" + String(decoding: chunk, as: UTF8.self)) } }, onEnd: { _ in seen.withLock { $0.append("2.") } })
        _ = try await body.collected(limit: 10) { _, _ in }
        #expect(seen.withLock { $0 } == ["1a", "2a", "1b", "2b", "1.", "2."])
    }

    // MARK: The pipeline's steps

    struct PassingLayer: HTTPLayer {
        func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
            try await next(request, context: context)
        }
    }

    @Test("the steps in order: the caller's layers, follow-ups, bridge, the cache slot, network layers, the exchange")
    func stages() {
        var configuration = SessionConfiguration()
        #expect(PipelineStage.stages(for: configuration).map(Self.name) == ["followUps", "bridge", "exchange"])
        configuration.layers = [PassingLayer(), PassingLayer()]
        configuration.cache = PassingLayer()
        configuration.networkLayers = [PassingLayer()]
        #expect(PipelineStage.stages(for: configuration).map(Self.name)
            == ["layer", "layer", "followUps", "bridge", "layer", "layer", "exchange"])
    }

    static func name(_ stage: PipelineStage) -> String {
        switch stage {
        case .layer: "layer"
        case .followUps: "followUps"
        case .bridge: "bridge"
        case .exchange: "exchange"
        }
    }

    @Test("a chain of layers without a session: the last must answer")
    func chainWithoutSession() async throws {
        struct Answering: HTTPLayer {
            func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
                HTTPLayerResponse(request: request, response: HTTPResponse(statusCode: 204), source: .layer("t"))
            }
        }
        let request = HTTPRequest(url: "https://a.example/")
        let answered = try await LayerChain([PassingLayer(), Answering()]).send(request, context: HTTPLayerContext())
        #expect(answered.response.statusCode == 204)
        #expect(answered.source == .layer("t"))
        let error = await #expect(throws: SluiceError.self) {
            try await LayerChain([PassingLayer()]).send(request, context: HTTPLayerContext())
        }
        #expect(error?.code == .transportFailed)
    }

    @Test("a layer's answer without transactions is recorded as one, marked with its source; the network's are its own")
    func recordedTransactions() {
        let request = HTTPRequest(url: "https://a.example/")
        let stub = HTTPLayerResponse(request: request, response: HTTPResponse(statusCode: 200), source: .cache)
        #expect(stub.recordedTransactions.map(\.source) == [.cache])
        let network = HTTPLayerResponse(request: request, response: HTTPResponse(statusCode: 200), source: .network)
        #expect(network.recordedTransactions.isEmpty)
        #expect(ResponseSource.revalidatedCache.usedNetwork && !ResponseSource.layer("x").usedNetwork)
        #expect(TaskMetrics().source == .network)
    }

    // MARK: Questions to the caller's code

    static func call() -> PipelineCall {
        let session = SessionManager()
        let task = SessionTask(id: 1, kind: .data, request: HTTPRequest(url: "https://a.example/"), controller: session)
        return PipelineCall(session: session, task: task, sink: .memory(MemorySink()))
    }

    @Test("a question is answered off the calling thread")
    func asked() async throws {
        let call = Self.call()
        let answer = try await PendingDecision.ask(
            { 42 }, for: call, request: call.task.originalRequest, deadline: nil,
            timeoutError: { SluiceError(.resourceTimedOut, "late") })
        #expect(answer == 42)
    }

    @Test("a cancel ends the wait for a handler that never answers")
    func askCancelled() async {
        let call = Self.call()
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let asked = TestSignal<Void>()
        Task {
            // The handler has been asked (the call waits for it): cancel now.
            try await asked.value("the handler was asked")
            call.cancelled()
        }
        let error = await #expect(throws: SluiceError.self) {
            try await PendingDecision.ask(
                { asked.send(); gate.wait(); return 1 }, for: call, request: call.task.originalRequest, deadline: nil,
                timeoutError: { SluiceError(.resourceTimedOut, "late") })
        }
        #expect(error?.code == .cancelled)
    }

    @Test("the resource timeout ends the wait for a handler that never answers")
    func askTimedOut() async {
        let call = Self.call()
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let error = await #expect(throws: SluiceError.self) {
            try await PendingDecision.ask(
                { gate.wait(); return 1 }, for: call, request: call.task.originalRequest,
                deadline: .now + .milliseconds(50), timeoutError: { SluiceError(.resourceTimedOut, "late") })
        }
        #expect(error?.code == .resourceTimedOut)
    }

    @Test("a stream a layer answered, read to its end, frees its call, its task and the layer's body", arguments: AnsweringLayer.Form.allCases)
    func layerStreamFreed(form: AnsweringLayer.Form) async throws {
        var configuration = SessionConfiguration()
        configuration.layers = [try AnsweringLayer(form: form, body: Data(repeating: 7, count: 50_000))]
        let session = SessionManager(configuration: configuration)
        var weakTask = WeakTask?.none
        do {
            let (stream, _, task) = try await session.runStream(request: HTTPRequest(url: "http://a.example/"), nil)
            weakTask = WeakTask(task)
            var count = 0
            for try await chunk in stream { count += chunk.count }
            #expect(count == 50_000)
        }
        // The call's end (on another task) may come a moment after the last byte is read.
        try await Wait.until("the task (and the call holding it) is freed") { weakTask?.task == nil }
        #expect(weakTask?.task == nil, "the task (and the call holding it) was never freed")
    }
}
