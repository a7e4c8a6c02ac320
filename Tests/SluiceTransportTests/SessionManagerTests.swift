import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("SessionManager against real servers", .tags(.server), .needsServers, .serialized)
    struct SessionManagerTests {
        @Test("GET over HTTP/1.1: body, status, headers and metrics")
        func plainGET() async throws {
            let session = try Transport.session()
            let result = try await session.data(for: Transport.request(.http, "/files/small.txt"))
            #expect(result.response.statusCode == 200)
            #expect(String(decoding: result.data, as: UTF8.self) == "Hello from Sluice\n")
            #expect(result.response.httpVersion == .http1_1)
            #expect(result.response.headers["Content-Length"] == "18")
            let transaction = try #require(result.metrics.transactions.first)
            #expect(transaction.statusCode == 200)
            #expect(transaction.bytesReceived == 18)
            #expect(transaction.remoteAddress == "127.0.0.1")
            #expect(transaction.remotePort == (try TestEnvironment.url(for: .http)).port)
            #expect(transaction.httpVersion == "HTTP/1.1")
            #expect(transaction.total > 0)
            // A new connection: each phase ends no earlier than the one before it.
            #expect(!transaction.reusedConnection)
            #expect(transaction.nameLookup >= 0 && transaction.connect > 0)
            #expect(transaction.connect >= transaction.nameLookup)
            #expect(transaction.timeToFirstByte >= transaction.connect)
            #expect(transaction.total >= transaction.timeToFirstByte)
            #expect(transaction.bytesSent == 0)
            let again = try await session.data(for: Transport.request(.http, "/files/small.txt"))
            #expect(again.metrics.transactions.first?.reusedConnection == true)
        }

        @Test("HTTPS negotiates HTTP/2 with the test CA, and fails as an untrusted chain without it")
        func https() async throws {
            let session = try Transport.session()
            let result = try await session.data(for: Transport.request(.https, "/files/1k.bin"))
            #expect(result.response.httpVersion == .http2)
            #expect(result.data == (try Transport.servedFile("1k.bin")))
            #expect((result.metrics.transactions.first?.tlsHandshake ?? 0) > 0)

            let untrusting = SessionManager()
            let error = await #expect(throws: SluiceError.self) {
                try await untrusting.data(for: Transport.request(.https, "/status"))
            }
            #expect(error?.code == .untrustedChain)
            #expect(error?.library?.library == "libcurl")
        }

        @Test("the HTTP version preference: 1.1 even where TLS offers 2; 2 with prior knowledge in clear text")
        func versionPreference() async throws {
            let http1 = try Transport.session { $0.httpVersion = .http1_1 }
            let overTLS = try await http1.data(for: Transport.request(.https, "/status"))
            #expect(overTLS.response.httpVersion == .http1_1)
            let http2 = try Transport.session { $0.httpVersion = .http2 }
            let clear = try await http2.data(for: Transport.request(.h2c, "/files/1k.bin"))
            #expect(clear.response.httpVersion == .http2)
            #expect(clear.data == (try Transport.servedFile("1k.bin")))
            // The default asks for HTTP/2 over TLS only: in clear text it speaks 1.1, which this server
            // (prior knowledge only) does not understand.
            let byDefault = try Transport.session()
            let plain = try? await byDefault.data(for: Transport.request(.h2c, "/status"))
            #expect(plain?.response.statusCode != 200)
        }

        @Test("HTTP error statuses are responses, not errors")
        func errorStatus() async throws {
            let session = try Transport.session()
            let result = try await session.data(for: Transport.request(.httpbin, "/status/418"))
            #expect(result.response.statusCode == 418)
        }

        @Test("uploads bytes, a file and a stream of unknown length; httpbin echoes them")
        func uploads() async throws {
            let session = try Transport.session()
            var request = try Transport.request(.httpbin, "/post", method: .post)
            try request.headers.set(name: "Content-Type", value: "application/octet-stream")
            let bytes = Data((0..<100_000).map { UInt8($0 % 256) })

            let fromBytes = try await session.upload(for: request, from: .bytes(bytes))
            let echoed = try Transport.json(fromBytes.data)
            #expect((echoed["data"] as? String)?.hasPrefix("data:application/octet-stream;base64,") == true)
            #expect((try Transport.json(fromBytes.data)["headers"] as? [String: String])?["Content-Length"] == "100000")

            let path = NSTemporaryDirectory() + "sluice-upload-\(UUID())"
            try bytes.write(to: URL(fileURLWithPath: path))
            defer { unlink(path) }
            var put = try Transport.request(.http, "/upload", method: .put)
            put.body = .file(path: path)
            let fromFile = try await session.data(for: put)
            #expect(try Transport.json(fromFile.data)["received"] as? Int == 100_000)

            final class Chunks: BodyStream {
                let remaining = Locked(5)
                var contentLength: Int64? { nil }
                func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                    remaining.withLock { remaining in
                        guard remaining > 0 else { return 0 }
                        remaining -= 1
                        let chunk = Array("chunk\(remaining);".utf8)
                        buffer.copyBytes(from: chunk)
                        return chunk.count
                    }
                }
            }
            var chunked = try Transport.request(.httpbin, "/post", method: .post)
            try chunked.headers.set(name: "Content-Type", value: "text/plain")
            let streamed = try await session.upload(for: chunked, from: .stream(Chunks()))
            #expect(try Transport.json(streamed.data)["data"] as? String == "chunk4;chunk3;chunk2;chunk1;chunk0;")
        }

        @Test("a body stream shorter than it declared fails the upload with that error")
        func shortStream() async throws {
            final class Short: BodyStream {
                let sent = Locked(false)
                var contentLength: Int64? { 1000 }
                func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                    sent.withLock { sent in
                        if sent { return 0 }
                        sent = true
                        buffer[0] = 65
                        return 1
                    }
                }
            }
            let session = try Transport.session()
            let error = await #expect(throws: SluiceError.self) {
                try await session.upload(for: Transport.request(.http, "/upload", method: .post), from: .stream(Short()))
            }
            #expect(error?.code == .bodyLengthMismatch)
        }

        @Test("a body stream that throws fails the upload with its own error, carrying the request")
        func failingStream() async throws {
            final class Failing: BodyStream {
                let reads = Locked(0)
                var contentLength: Int64? { nil }
                func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                    let read = reads.withLock { reads -> Int in
                        reads += 1
                        return reads
                    }
                    guard read < 3 else { throw SluiceError(.bodyStreamFailed, "the source went away") }
                    buffer.initializeMemory(as: UInt8.self, repeating: 65)
                    return buffer.count
                }
            }
            let session = try Transport.session()
            let request = try Transport.request(.http, "/upload", method: .post)
            let error = await #expect(throws: SluiceError.self) {
                try await session.upload(for: request, from: .stream(Failing()))
            }
            #expect(error?.code == .bodyStreamFailed)
            #expect(error?.message.contains("the source went away") == true)
            #expect(error?.request?.url == request.url)
        }

        @Test("downloads to a file moved into place; the bytes match what nginx serves")
        func download() async throws {
            let session = try Transport.session()
            let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-dl-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let target = directory.appendingPathComponent("nested/16m.bin")
            let result = try await session.download(for: Transport.request(.https, "/files/16m.bin")) { temporary, response in
                #expect(response.statusCode == 200)
                #expect(FileManager.default.fileExists(atPath: temporary.path))
                return target
            }
            #expect(result.fileURL == target)
            #expect(try Data(contentsOf: target) == (try Transport.servedFile("16m.bin")))
            #expect(result.metrics.transactions.first?.bytesReceived == 16 << 20)
        }

        @Test("a failed download leaves no partial file")
        func failedDownload() async throws {
            let server = try RawTCPServer(reply: .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nonly this".utf8)))
            defer { server.stop() }
            let session = try Transport.session()
            let before = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("sluice-download-") }
            let error = await #expect(throws: SluiceError.self) {
                try await session.download(for: HTTPRequest(url: server.url.appendingPathComponent("x"))) { _, _ in
                    URL(fileURLWithPath: "/tmp/never")
                }
            }
            #expect(error?.code == .connectionLost)
            let after = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("sluice-download-") }
            #expect(Set(after) == Set(before))
        }

        @Test("a connection closed mid-body is connectionLost with the bytes received, no hang")
        func serverDiesMidBody() async throws {
            let server = try RawTCPServer(reply: .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nContent-Type: text/plain\r\n\r\npartial body".utf8)))
            defer { server.stop() }
            let session = try Transport.session()
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: HTTPRequest(url: server.url.appendingPathComponent("x")))
            }
            #expect(error?.code == .connectionLost)
            #expect(error?.response?.statusCode == 200)
            #expect(error?.body == Data("partial body".utf8))
            #expect(error?.library?.code == 18)  // CURLE_PARTIAL_FILE
        }

        @Test("a server process killed during a body: connectionLost with the bytes so far, no hang, the task freed")
        func serverKilledMidBody() async throws {
            // A server that sends a 100 MB body slowly, for at most 30 s; killed with SIGKILL mid-body.
            let script = """
                import signal, socket, sys, time
                signal.alarm(30)
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
                print(s.getsockname()[1], flush=True)
                c, _ = s.accept()
                head = b""
                while b"\\r\\n\\r\\n" not in head:
                    data = c.recv(4096)
                    if not data: sys.exit(0)
                    head += data
                c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 104857600\\r\\n\\r\\n")
                while True:
                    c.sendall(b"x" * 65536); time.sleep(0.01)
                """
            // The script prints its port to a file, which the test waits for (a read of a pipe would block
            // one of the few threads async code runs on).
            let portFile = NSTemporaryDirectory() + "sluice-server-port-\(UUID())"
            try #require(FileManager.default.createFile(atPath: portFile, contents: nil))
            defer { unlink(portFile) }
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            server.arguments = ["python3", "-c", script]
            server.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: portFile))
            try server.run()
            defer {
                if server.isRunning { kill(server.processIdentifier, SIGKILL) }
                server.waitUntilExit()
            }
            let port: Int = try await Wait.value("the server script's port in \(portFile)") {
                let line = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
                if line.hasSuffix("\n"), let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) { return port }
                try #require(server.isRunning, "the server script ended before it listened")
                return nil
            }

            let session = try Transport.session()
            let tracked = Locked<WeakTask?>(nil)
            let transfer = Task {
                try await session.data(for: HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/big")!)) { task in
                    tracked.withLock { $0 = WeakTask(task) }
                }
            }
            try await Wait.until("256 KiB of the body arrived") {
                (tracked.withLock { $0?.task }?.downloadProgress.completedUnitCount ?? 0) >= 256 << 10
            }
            #expect((tracked.withLock { $0?.task }?.downloadProgress.completedUnitCount ?? 0) >= 256 << 10)
            kill(server.processIdentifier, SIGKILL)
            // No hang, shown by the code rather than a clock: connectionLost says the closed connection
            // ended the transfer; a transport that missed it would end only in the 60 s idle timeout.
            let error = await #expect(throws: SluiceError.self) { try await transfer.value }
            #expect(error?.code == .connectionLost)
            #expect(error?.response?.statusCode == 200)
            // The bytes so far, cut to the error's body limit.
            #expect(error?.body?.count == SluiceError.bodyLimit && error?.isBodyTruncated == true)
            try await Wait.until("the failed task was freed") { tracked.withLock { $0?.task } == nil }
            #expect(tracked.withLock { $0?.task } == nil, "the failed task is still referenced")
            #expect(session.tasks.isEmpty)
        }

        @Test("streams a body in chunks with back-pressure while the consumer is slow")
        func streaming() async throws {
            let session = try Transport.session { $0.streamBufferLimit = 64 * 1024 }
            let (stream, response) = try await session.bytes(for: Transport.request(.http, "/files/16m.bin"))
            #expect(response.statusCode == 200)
            var received = Data()
            var chunks = 0
            for try await chunk in stream {
                received.append(chunk)
                chunks += 1
                // The slow consumer: the behaviour under test.
                if chunks % 64 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(received == (try Transport.servedFile("16m.bin")))
        }

        @Test("a stream nobody reads pauses its transfer at the buffer limit")
        func streamPauses() async throws {
            let session = try Transport.session { $0.streamBufferLimit = 256 * 1024 }
            let (stream, _) = try await session.bytes(for: Transport.request(.http, "/files/16m.bin"))
            let task = try #require(session.tasks.first)
            // The transfer's pause is the engine thread's to read: read it there, between two turns.
            try await Wait.until("the transfer paused for its unread stream") {
                await withTaskExecutorPreference(session.taskExecutor) {
                    await Task.yield()
                    return task.mutable.withLock { $0.transfer }?.pause.isPausedByStream == true
                }
            }
            // Paused: the limit plus what curl had in hand when it paused (its 512 KiB buffer), not 16 MiB.
            let early = task.downloadProgress.completedUnitCount
            #expect(early <= 1 << 20, "\(early) bytes received while nobody read")
            // A bounded negative check, as staying paused has no event: not a byte more in 200 ms, where a
            // transfer that went on would move megabytes. Paused, a slow machine cannot fail it.
            try await Task.sleep(for: .milliseconds(200))
            #expect(task.downloadProgress.completedUnitCount == early)
            var total = 0
            for try await chunk in stream { total += chunk.count }
            #expect(total == 16 << 20)
        }

        @Test("dropping a stream early cancels its transfer")
        func streamDropped() async throws {
            let session = try Transport.session { $0.streamBufferLimit = 64 * 1024 }
            do {
                let (stream, _) = try await session.bytes(for: Transport.request(.http, "/files/16m.bin"))
                var iterator = stream.makeAsyncIterator()
                _ = try await iterator.next()
            }
            try await Wait.until("the dropped stream's task ended") { session.tasks.isEmpty }
            #expect(session.tasks.isEmpty)
        }
    }
}
