import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// Request bodies from async sequences against httpbin: hashed by the server with and without a length,
/// through SessionManager, HTTPSessionManager and as a multipart part; a throwing sequence, a wrong
/// length, a cancelled Swift task, a 307 that sends the body again.
@Suite("Uploads from async sequences", .tags(.server), .needsServers)
struct AsyncBodyUploadTests {
    static func pattern(_ total: Int, chunk: Int = 50_000) -> [Data] {
        stride(from: 0, to: total, by: chunk).map { start in
            Data((start..<min(start + chunk, total)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        }
    }

    static func sequence(_ chunks: [Data]) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
    }

    struct Hashed: Decodable, Sendable {
        let received: Int
        let sha256: String
    }

    @Test("8 MB with its length and chunked: the server's SHA-256 is the producer's", arguments: [true, false])
    func hashed(withLength: Bool) async throws {
        let chunks = Self.pattern(8_000_000)
        let whole = chunks.reduce(Data(), +)
        let session = SessionManager()
        let request = try TestEnvironment.request(.httpbin, "/sluice/sha256", method: .post)
        let body = HTTPBody.asyncSequence(length: withLength ? Int64(whole.count) : nil) { Self.sequence(chunks) }
        let result = try await session.upload(for: request, from: body)
        let hashed = try JSONDecoder().decode(Hashed.self, from: result.data)
        #expect(hashed.received == whole.count)
        #expect(try await hashed.sha256 == FileDigest.sha256(of: whole))
    }

    struct Broken: Error {}

    @Test("a sequence that throws fails the task with bodyStreamFailed carrying its error")
    func throwing() async throws {
        let request = try TestEnvironment.request(.httpbin, "/sluice/sha256", method: .post)
        let body = HTTPBody.asyncSequence(AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(count: 100_000))
            continuation.finish(throwing: Broken())
        })
        let error = await #expect(throws: SluiceError.self) { try await SessionManager().upload(for: request, from: body) }
        #expect(error?.code == .bodyStreamFailed)
        #expect(error?.underlying is Broken, "\(String(describing: error))")
    }

    @Test("a sequence shorter than its declared length fails with bodyLengthMismatch")
    func wrongLength() async throws {
        let request = try TestEnvironment.request(.httpbin, "/sluice/sha256", method: .post)
        let body = HTTPBody.asyncSequence(length: 1000) { Self.sequence([Data(count: 10)]) }
        let error = await #expect(throws: SluiceError.self) { try await SessionManager().upload(for: request, from: body) }
        #expect(error?.code == .bodyLengthMismatch)
    }

    @Test("cancelling the Swift task stops the producer")
    func cancellation() async throws {
        let produced = Locked(0)
        let terminated = TestSignal<Void>()
        // The count when the producer's loop ended: the producer itself announces that it stopped.
        let producerEnded = TestSignal<Int>()
        let request = try TestEnvironment.request(.httpbin, "/sluice/sha256", method: .post)
        let body = HTTPBody.asyncSequence {
            AsyncThrowingStream<Data, any Error> { continuation in
                let producer = Task {
                    // An endless, slow producer: 64 KiB every 10 ms.
                    while !Task.isCancelled {
                        produced.withLock { $0 += 1 }
                        continuation.yield(Data(count: 64 << 10))
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                    producerEnded.send(produced.withLock { $0 })
                }
                continuation.onTermination = { _ in
                    producer.cancel()
                    terminated.send()
                }
            }
        }
        let session = SessionManager()
        let upload = Task { try await session.upload(for: request, from: body) }
        // Cancelled once the body is being sent (a slow machine, or a sanitizer, can take a while to start).
        try await Wait.until("the body is being sent (5 chunks produced)") { produced.withLock { $0 } >= 5 }
        #expect(produced.withLock { $0 } >= 5, "the body was never read")
        upload.cancel()
        let result = await upload.result
        #expect(throws: (any Error).self) { try result.get() }
        try await terminated.value("the sequence was ended")
        #expect(terminated.sentValue != nil, "the sequence was not ended")
        // The producer's loop has ended: nothing can be produced after the count it reported.
        let after = try await producerEnded.value("the producer stopped")
        #expect(produced.withLock { $0 } == after, "the producer went on")
    }

    @Test("a 307 sends the body again from a new sequence; a body made from one sequence cannot be")
    func redirect() async throws {
        let target = try TestEnvironment.url(for: .httpbin).appendingPathComponent("sluice/sha256").absoluteString
        var components = URLComponents(url: try TestEnvironment.url(for: .httpbin).appendingPathComponent("redirect-to"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "url", value: target), URLQueryItem(name: "status_code", value: "307")]
        let request = HTTPRequest(url: components.url!, method: .post)
        let chunks = Self.pattern(300_000)
        let made = Locked(0)
        let body = HTTPBody.asyncSequence(length: 300_000) {
            made.withLock { $0 += 1 }
            return Self.sequence(chunks)
        }
        let result = try await SessionManager().upload(for: request, from: body)
        let hashed = try JSONDecoder().decode(Hashed.self, from: result.data)
        #expect(hashed.received == 300_000)
        #expect(try await hashed.sha256 == FileDigest.sha256(of: chunks.reduce(Data(), +)))
        #expect(made.withLock { $0 } >= 1)

        let once = HTTPBody.asyncSequence(Self.sequence(chunks), length: 300_000)
        let error = await #expect(throws: SluiceError.self) { try await SessionManager().upload(for: request, from: once) }
        #expect(error?.code == .bodyNotRewindable)
    }

    @Test("HTTPSessionManager.upload and a multipart part from an async sequence")
    func manager() async throws {
        let manager = HTTPSessionManager(baseURL: try TestEnvironment.url(for: .httpbin))
        let chunks = Self.pattern(1_000_000)
        let whole = chunks.reduce(Data(), +)
        let response = try await manager.upload(
            "sluice/sha256", body: .asyncSequence(length: Int64(whole.count)) { Self.sequence(chunks) },
            headers: ["Content-Type": "application/octet-stream"])
        #expect(try await (response.value as? Parameters)?["sha256"] == .string(FileDigest.sha256(of: whole)))

        let form = try manager.multipartRequest("sluice/multipart") { form in
            try form.appendPart(
                headers: ["Content-Disposition": #"form-data; name="blob"; filename="blob.bin""#, "Content-Type": "application/octet-stream"],
                body: .asyncSequence(length: Int64(whole.count)) { Self.sequence(chunks) })
        }
        let echoed = try await manager.send(form, serializer: JSONResponseSerializer())
        let parts = try #require(echoed.value?["parts"])
        #expect(try await "\(parts)".contains(FileDigest.sha256(of: whole)))
    }
}
