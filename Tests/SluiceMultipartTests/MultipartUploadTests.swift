import Foundation
import SluiceCore
import SluiceMultipart
import SluiceRequestSerialization
import SluiceTestSupport
import SluiceTransport
import Testing

/// Multipart bodies sent through SluiceTransport to the real servers: an independent parser
/// (Python's email package behind `/sluice/multipart`) and httpbin read them back.
@Suite("Multipart uploads", .tags(.server), .needsServers, .serialized)
struct MultipartUploadTests {
    let serializer = HTTPRequestSerializer()
    let session = SessionManager()

    func url(_ path: String) throws -> String { try TestEnvironment.url(for: .httpbin).absoluteString + path }

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func sha256(_ data: Data) async throws -> String { try await FileDigest.sha256(of: data) }

    static func sha256(ofFile path: String) async throws -> String { try await FileDigest.sha256(ofFile: path) }

    @Test("Python's email parser reads every part back: names, file names, types and bytes (SHA-256)")
    func independentParser() async throws {
        _ = try TestEnvironment.requireServers()
        let binary = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8)) })
        let file = try MultipartFormTests.temporaryFile(binary, name: "photo.png")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let streamed = Data("line\r\n--Boundary+ not the boundary\r\n".utf8)
        var headers = HTTPHeaders()
        try headers.set(name: "Content-Disposition", value: "form-data; name=\"meta\"")
        try headers.set(name: "Content-Type", value: "application/json")
        try headers.set(name: "X-Part", value: "7")
        let request = try serializer.multipartFormRequest(
            urlString: url("/sluice/multipart"), parameters: ["user": ["name": "Ada", "tags": ["a", "b"]], "n": 3]
        ) { form in
            form.appendPart(formData: Data("plain value".utf8), name: "field")
            try form.appendPart(fileURL: file, name: "photo")
            try form.appendPart(stream: DataBodyStream(streamed), length: Int64(streamed.count), name: "log", fileName: "log.txt", mimeType: "text/plain")
            try form.appendPart(data: Data(), name: "empty", fileName: "empty.bin", mimeType: "application/octet-stream")
            try form.appendPart(data: Data("ü".utf8), name: "naïve", fileName: "résumé 😀.pdf", mimeType: "application/pdf")
            form.appendPart(formData: Data("q".utf8), name: "we\"ird\r\nname")
            try form.appendPart(headers: headers, body: .bytes(Data("{\"a\":1}".utf8)))
        }
        let result = try await session.data(for: request)
        #expect(result.response.statusCode == 200)
        let echo = try Self.json(result.data)
        #expect(echo["multipart"] as? Bool == true)
        #expect((echo["defects"] as? [String])?.isEmpty == true)
        #expect(echo["received"] as? Int == Int(request.headers["Content-Length"] ?? ""))
        let parts = try #require(echo["parts"] as? [[String: Any]])
        let expected: [(name: String, fileName: String?, type: String?, bytes: Data)] = [
            ("n", nil, nil, Data("3".utf8)),
            ("user[name]", nil, nil, Data("Ada".utf8)),
            ("user[tags][]", nil, nil, Data("a".utf8)),
            ("user[tags][]", nil, nil, Data("b".utf8)),
            ("field", nil, nil, Data("plain value".utf8)),
            ("photo", "photo.png", "image/png", binary),
            ("log", "log.txt", "text/plain", streamed),
            ("empty", "empty.bin", "application/octet-stream", Data()),
            ("naïve", "résumé 😀.pdf", "application/pdf", Data("ü".utf8)),
            ("we%22ird%0D%0Aname", nil, nil, Data("q".utf8)),
            ("meta", nil, "application/json", Data("{\"a\":1}".utf8)),
        ]
        try #require(parts.count == expected.count)
        for (part, want) in zip(parts, expected) {
            #expect(part["name"] as? String == want.name)
            #expect(part["filename"] as? String == want.fileName, "\(want.name)")
            #expect(part["contentType"] as? String == want.type, "\(want.name)")
            #expect(part["size"] as? Int == want.bytes.count, "\(want.name)")
            #expect(try await part["sha256"] as? String == Self.sha256(want.bytes), "\(want.name)")
        }
        let metaHeaders = try #require(parts.last?["headers"] as? [[String]])
        #expect(metaHeaders.contains(["X-Part", "7"]))
    }

    @Test("httpbin's /post sees the form fields and the file")
    func httpbinPost() async throws {
        let request = try serializer.multipartFormRequest(urlString: url("/post"), parameters: ["greeting": "hello world"]) { form in
            try form.appendPart(data: Data("file contents\n".utf8), name: "upload", fileName: "a.txt", mimeType: "text/plain")
        }
        #expect(request.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=Boundary+") == true)
        let echo = try Self.json(try await session.data(for: request).data)
        #expect((echo["form"] as? [String: Any])?["greeting"] as? String == "hello world")
        #expect((echo["files"] as? [String: Any])?["upload"] as? String == "file contents\n")
        #expect((echo["headers"] as? [String: Any])?["Content-Length"] as? String == request.headers["Content-Length"])
    }

    @Test("Content-Length equals the bytes sent, for every part kind, throttled or not", arguments: [false, true])
    func contentLength(throttled: Bool) async throws {
        let file = try MultipartFormTests.temporaryFile(Data(repeating: 0x5A, count: 48_000), name: "data.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var headers = HTTPHeaders()
        try headers.set(name: "Content-Disposition", value: "form-data; name=\"range\"")
        let request = try serializer.multipartFormRequest(urlString: url("/sluice/sha256"), parameters: ["p": "1"]) { form in
            form.appendPart(formData: Data("v".utf8), name: "k")
            try form.appendPart(fileURL: file, name: "file")
            try form.appendPart(stream: DataBodyStream(Data(count: 10_001)), length: 10_001, name: "s", fileName: "s", mimeType: "x/y")
            try form.appendPart(data: Data(count: 3), name: "d", fileName: "d", mimeType: "x/y")
            try form.appendPart(headers: headers, body: .file(path: file.path, range: 5..<4_005))
            if throttled { form.throttleBandwidth(MultipartThrottle(packetSize: 8 * 1024, delay: .milliseconds(20))) }
        }
        guard case .stream(let stream) = request.body else {
            Issue.record("no stream body")
            return
        }
        let body = Data(try stream.readAll())
        try stream.rewind()
        let started = ContinuousClock.now
        let result = try await session.data(for: request)
        let elapsed = ContinuousClock.now - started
        let echo = try Self.json(result.data)
        #expect(echo["received"] as? Int == body.count)
        #expect(Int(request.headers["Content-Length"] ?? "") == body.count)
        #expect(try await echo["sha256"] as? String == Self.sha256(body))
        #expect(result.metrics.transactions.first?.bytesSent == Int64(body.count))
        if throttled {
            // 8 packets at least, each followed by a 20 ms pause. A lower bound: a busy machine only makes the
            // upload slower.
            #expect(elapsed >= .milliseconds(140), "a throttled upload of \(body.count) bytes took \(elapsed)")
        }
    }

    @Test("a throttled upload pauses its own transfer only: other requests of the session go on")
    func throttleDoesNotBlock() async throws {
        let formRequest = try serializer.multipartFormRequest(urlString: url("/sluice/sha256")) { form in
            form.appendPart(formData: Data(count: 80 * 1024), name: "slow")
            form.throttleBandwidth(MultipartThrottle(packetSize: 4 * 1024, delay: .milliseconds(100)))
        }
        guard case .stream(let stream) = formRequest.body else {
            Issue.record("no stream body")
            return
        }
        // Once started, the upload is held paused, as the throttle pauses it, until the GETs are done: it
        // cannot end before them, however slow the machine.
        let held = HeldUpload(stream)
        var request = formRequest
        request.body = .stream(held)
        let session = self.session
        let uploadDone = Locked(false)
        let upload = Task { [request] in
            defer { uploadDone.withLock { $0 = true } }
            return try await session.data(for: request)
        }
        defer { held.release() }
        try await held.started.value("the throttled upload has started")
        // The GETs go to nginx: httpbin's threads may all be busy with other suites' slow requests.
        let get = try TestEnvironment.request(.http, "/status")
        for _ in 0..<5 {
            let response = try await session.data(for: get)
            #expect(response.response.statusCode == 200)
        }
        // GETs that waited for the upload would have come back only after it, once the hold gave way.
        #expect(!uploadDone.withLock { $0 }, "the GETs waited for the throttled upload")
        held.release()
        let finished = try await upload.value
        #expect(try Self.json(finished.data)["received"] as? Int == Int(request.headers["Content-Length"] ?? ""))
    }

    @Test("a stream part that ends early or runs long fails the upload with that error, without hanging")
    func badStreams() async throws {
        for (data, declared, code) in [
            (Data("short".utf8), Int64(1000), SluiceError.Code.multipartPartEndedEarly),
            (Data(count: 100_000), Int64(10), SluiceError.Code.multipartPartTooLong),
        ] {
            let request = try serializer.multipartFormRequest(urlString: url("/sluice/sha256")) { form in
                try form.appendPart(stream: OneShotStream(data), length: declared, name: "s", fileName: "s", mimeType: "x/y")
            }
            let error = await #expect(throws: SluiceError.self) { try await session.data(for: request) }
            #expect(error?.code == code)
        }
    }

    @Test("a 307 redirect sends the multipart body again from its first byte")
    func redirectResends() async throws {
        let file = try MultipartFormTests.temporaryFile(Data(repeating: 3, count: 200_000), name: "r.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let request = try serializer.multipartFormRequest(
            urlString: url("/redirect-to?url=%2Fsluice%2Fmultipart&status_code=307")
        ) { form in
            form.appendPart(formData: Data("again".utf8), name: "k")
            try form.appendPart(fileURL: file, name: "f")
        }
        let result = try await session.data(for: request)
        #expect(result.metrics.transactions.count == 2)
        let echo = try Self.json(result.data)
        let parts = try #require(echo["parts"] as? [[String: Any]])
        #expect(parts.map { $0["name"] as? String } == ["k", "f"])
        #expect(parts.last?["size"] as? Int == 200_000)
        #expect(echo["received"] as? Int == Int(request.headers["Content-Length"] ?? ""))
    }

    @Test("a 16 MiB file part written to a file and sent: the server's SHA-256 is the file's")
    func largeFilePart() async throws {
        let served = try #require(TestEnvironment.requireServers().wwwDirectory) + "/files/16m.bin"
        let request = try serializer.multipartFormRequest(urlString: url("/sluice/sha256")) { form in
            form.appendPart(formData: Data("16m".utf8), name: "name")
            try form.appendPart(fileURL: URL(fileURLWithPath: served), name: "file")
        }
        let target = try MultipartFormTests.temporaryFile(Data(), name: "body").deletingLastPathComponent()
            .appendingPathComponent("body.multipart")
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        let fileRequest = try await serializer.request(request, writingBodyTo: target)
        let echo = try Self.json(try await session.data(for: request).data)
        #expect(try await echo["sha256"] as? String == Self.sha256(ofFile: target.path))
        let fromFile = try Self.json(try await session.data(for: fileRequest).data)
        #expect(fromFile["sha256"] as? String == echo["sha256"] as? String)
        #expect(fromFile["received"] as? Int == Int(request.headers["Content-Length"] ?? ""))
    }
}

/// An upload's body read through, and held paused once it has started, until ``release()``: the transport
/// asks it before each read how long to wait, as it asks a throttle, and while held it says to wait. It
/// gives way by itself after ``Wait/defaultDeadline``, so that requests that wrongly wait for it fail the
/// test instead of hanging it.
private final class HeldUpload: BodyStream {
    let inner: any BodyStream
    /// Sent at the first read: the upload has started.
    let started = TestSignal<Void>()
    private let heldSince = Locked<ContinuousClock.Instant?>(nil)
    private let released = Locked(false)

    init(_ inner: any BodyStream) { self.inner = inner }

    var contentLength: Int64? { inner.contentLength }
    var isRewindable: Bool { inner.isRewindable }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        heldSince.withLock { since in since = since ?? ContinuousClock.now }
        started.send()
        return try inner.read(into: buffer)
    }

    func rewind() throws(SluiceError) { try inner.rewind() }
    func close() { inner.close() }
    func stopReading() { inner.stopReading() }

    func delayBeforeNextRead() -> Duration? {
        let holding = !released.withLock { $0 }
            && heldSince.withLock { since in since.map { ContinuousClock.now - $0 < Wait.defaultDeadline } ?? false }
        guard holding else { return inner.delayBeforeNextRead() }
        return max(inner.delayBeforeNextRead() ?? .zero, .milliseconds(20))
    }

    /// Lets the upload go on at the throttle's pace.
    func release() { released.withLock { $0 = true } }
}
