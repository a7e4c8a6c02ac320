import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import SluiceCore
import SluiceTestSupport
import Testing

/// Bodies that stream both ways: a response read as it arrives, uploads of unknown length, and a body sent
/// again on a 307 redirect.
extension OpenAPISuites {
    @Suite("Streaming through SluiceClientTransport", .tags(.server), .needsServers)
    struct StreamingTests {
        @Test("GET /drip: the bytes arrive one by one, the first long before the end")
        func dripArrivesAsItIsSent() async throws {
            let start = ContinuousClock.now
            let output = try await HTTPBin.client().drip(query: .init(duration: 6, numbytes: 5, code: 200, delay: 0))
            let body = try output.ok.body.binary
            #expect(body.length == .known(5))
            #expect(body.iterationBehavior == .single)
            var arrivals: [ContinuousClock.Instant] = []
            var bytes = 0
            for try await chunk in body {
                arrivals.append(.now)
                bytes += chunk.count
            }
            let end = ContinuousClock.now
            #expect(bytes == 5)
            #expect(arrivals.count >= 2, "the bytes came in \(arrivals.count) chunk(s)")
            // httpbin waits 1.2 s after each byte: the first is in hand 4.8 s before the body ends, and 1.2 s is
            // asked, so a reader that a busy machine holds up for seconds still passes; only a body held back to
            // its end fails.
            let first = try #require(arrivals.first)
            #expect(end - first >= .milliseconds(1200), "first byte at \(first - start), end at \(end - start)")
        }

        @Test("GET /stream/{n}: JSON lines read one by one as they arrive")
        func jsonLines() async throws {
            let body = try await HTTPBin.client().streamLines(path: .init(n: 5)).ok.body.any
            #expect(body.length == .unknown)
            var ids: [Int] = []
            for try await line in body.asDecodedJSONLines(of: Line.self) { ids.append(line.id) }
            #expect(ids == [0, 1, 2, 3, 4])
        }

        @Test("POST /post with a body of unknown length from an AsyncStream: sent chunked, every byte arrives")
        func uploadOfUnknownLength() async throws {
            let (stream, continuation) = AsyncStream<OpenAPIRuntime.HTTPBody.ByteChunk>.makeStream()
            let producer = Task {
                for index in 0..<64 {
                    continuation.yield(ArraySlice(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: 4096))
                    await Task.yield()
                }
                continuation.finish()
            }
            defer { producer.cancel() }
            let body = OpenAPIRuntime.HTTPBody(stream, length: .unknown)
            let echo = try await HTTPBin.client().postEcho(body: .binary(body)).ok.body.json
            let expected = (0..<64).map { String(repeating: Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))), count: 4096) }.joined()
            #expect(echo.data == expected)
            #expect(echo.headers.additionalProperties["Transfer-Encoding"] == "chunked")
            #expect(echo.headers.additionalProperties["Content-Length"] == nil)
        }

        @Test("POST /redirect-to with 307: a body of .multiple iteration is sent again to the target")
        func resentOnRedirect() async throws {
            let chunks = CountingChunks(chunks: [ArraySlice("first,".utf8), ArraySlice("second,".utf8), ArraySlice("third".utf8)])
            let body = OpenAPIRuntime.HTTPBody(chunks, length: .unknown, iterationBehavior: .multiple)
            let output = try await HTTPBin.client().redirectTo(
                query: .init(url: "/post", statusCode: 307), body: .binary(body))
            let echo = try output.ok.body.json
            #expect(echo.url.hasSuffix("/post"))
            #expect(echo.data == "first,second,third")
            #expect(chunks.iterations.withLock { $0 } == 2)
        }

        @Test("POST /redirect-to with 307: a body of .single iteration cannot be sent again, a typed error says so")
        func singleBodyNotResent() async throws {
            let (stream, continuation) = AsyncStream<OpenAPIRuntime.HTTPBody.ByteChunk>.makeStream()
            continuation.yield(ArraySlice("once".utf8))
            continuation.finish()
            let error = await #expect(throws: ClientError.self) {
                try await HTTPBin.client().redirectTo(
                    query: .init(url: "/post", statusCode: 307), body: .binary(OpenAPIRuntime.HTTPBody(stream, length: .unknown)))
            }
            #expect((error?.underlyingError as? SluiceError)?.code == .bodyNotRewindable)
        }
    }
}

/// One line of httpbin's /stream/{n}.
private struct Line: Decodable {
    let id: Int
}
