import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("Redirects", .tags(.server), .needsServers, .serialized)
    struct RedirectTests {
        @Test("follows relative and absolute redirects, one transaction per hop")
        func follows() async throws {
            let session = try Transport.session()
            let result = try await session.data(for: Transport.request(.httpbin, "/redirect/3"))
            #expect(result.response.statusCode == 200)
            #expect(result.request.url.path == "/get")
            #expect(result.metrics.redirectCount == 3)
            #expect(result.metrics.transactions.map(\.statusCode) == [302, 302, 302, 200])
            let absolute = try await session.data(for: Transport.request(.httpbin, "/absolute-redirect/2"))
            #expect(absolute.request.url.path == "/get")
        }

        @Test("303, and 301/302 after POST, switch to GET without a body; 307 keeps method and body", arguments: [
            (303, "POST", "GET"), (302, "POST", "GET"), (301, "POST", "GET"), (307, "POST", "POST"), (308, "PUT", "PUT"),
            (302, "PUT", "PUT"),
        ])
        func methodRules(status: Int, method: String, expected: String) async throws {
            let session = try Transport.session()
            let base = try TestEnvironment.url(for: .httpbin)
            let target = "\(base.absoluteString)/anything"
            var request = try Transport.request(
                .httpbin, "/redirect-to?url=\(target)&status_code=\(status)", method: HTTPMethod(rawValue: method))
            try request.headers.set(name: "Content-Type", value: "text/plain")
            request.body = .bytes(Data("payload".utf8))
            let result = try await session.data(for: request)
            let echo = try Transport.json(result.data)
            #expect(echo["method"] as? String == expected)
            #expect((echo["data"] as? String) == (expected == "GET" ? "" : "payload"))
        }

        @Test("a 307 sends a body stream again from its first byte")
        func streamRewoundOnRedirect() async throws {
            final class Rewindable: BodyStream {
                private let state = Locked((offset: 0, rewinds: 0))
                private let bytes = Data("streamed payload".utf8)
                var rewinds: Int { state.withLock { $0.rewinds } }
                var contentLength: Int64? { Int64(bytes.count) }
                var isRewindable: Bool { true }
                func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                    state.withLock { state in
                        let count = min(buffer.count, bytes.count - state.offset)
                        buffer.copyBytes(from: bytes[state.offset..<state.offset + count])
                        state.offset += count
                        return count
                    }
                }
                func rewind() throws(SluiceError) { state.withLock { $0 = (0, $0.rewinds + 1) } }
            }
            let session = try Transport.session()
            let base = try TestEnvironment.url(for: .httpbin)
            var request = try Transport.request(
                .httpbin, "/redirect-to?url=\(base.absoluteString)/anything&status_code=307", method: .post)
            try request.headers.set(name: "Content-Type", value: "text/plain")
            let stream = Rewindable()
            request.body = .stream(stream)
            let result = try await session.data(for: request)
            #expect(result.metrics.transactions.count == 2)
            #expect(try Transport.json(result.data)["data"] as? String == "streamed payload")
            #expect(stream.rewinds >= 1)
        }

        @Test("credentials and cookies are dropped when a redirect leaves the origin, kept within it")
        func crossOriginHeaders() async throws {
            let session = try Transport.session()
            let base = try TestEnvironment.url(for: .httpbin)
            let otherOrigin = "http://localhost:\(base.port!)/headers"
            var request = try Transport.request(.httpbin, "/redirect-to?url=\(otherOrigin)")
            try request.headers.set(name: "Authorization", value: "Bearer secret")
            try request.headers.set(name: "Cookie", value: "session=1")
            try request.headers.set(name: "Proxy-Authorization", value: "Basic cHJveHk6cHc=")
            try request.headers.set(name: "X-Kept", value: "yes")
            let crossed = try Transport.json(try await session.data(for: request).data)["headers"] as? [String: String]
            #expect(crossed?["Authorization"] == nil)
            #expect(crossed?["Cookie"] == nil)
            #expect(crossed?["Proxy-Authorization"] == nil)
            #expect(crossed?["X-Kept"] == "yes")

            request.url = URL(string: "\(base.absoluteString)/redirect-to?url=/headers")!
            let same = try Transport.json(try await session.data(for: request).data)["headers"] as? [String: String]
            #expect(same?["Authorization"] == "Bearer secret")
        }

        @Test("the session's default credentials are dropped too when a redirect leaves the origin")
        func crossOriginDefaultHeaders() async throws {
            let session = try Transport.session {
                $0.defaultHeaders = try! HTTPHeaders(validating: [
                    ("Authorization", "Bearer secret"), ("Cookie", "session=1"), ("Proxy-Authorization", "Basic cHJveHk6cHc="),
                    ("X-Default", "yes"),
                ])
            }
            let base = try TestEnvironment.url(for: .httpbin)
            var request = try Transport.request(.httpbin, "/redirect-to?url=http://localhost:\(base.port!)/headers")
            try request.headers.set(name: "Proxy-Authorization", value: "Basic b3duOnB3")
            let crossed = try Transport.json(try await session.data(for: request).data)["headers"] as? [String: String]
            #expect(crossed?["Authorization"] == nil)
            #expect(crossed?["Cookie"] == nil)
            #expect(crossed?["Proxy-Authorization"] == nil)
            #expect(crossed?["X-Default"] == "yes")

            let direct = try Transport.json(try await session.data(for: Transport.request(.httpbin, "/headers")).data)["headers"] as? [String: String]
            #expect(direct?["Authorization"] == "Bearer secret")
            #expect(direct?["Proxy-Authorization"] == "Basic cHJveHk6cHc=")
        }

        @Test("too many redirects is its own error, carrying the last redirect")
        func tooMany() async throws {
            let session = try Transport.session { $0.redirectPolicy = .follow(maximum: 2) }
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: Transport.request(.httpbin, "/redirect/5"))
            }
            #expect(error?.code == .tooManyRedirects)
            #expect(error?.response?.statusCode == 302)
        }

        @Test("refusing delivers the redirect response itself")
        func refuse() async throws {
            let session = try Transport.session { $0.redirectPolicy = .refuse }
            let result = try await session.data(for: Transport.request(.httpbin, "/redirect/1"))
            #expect(result.response.statusCode == 302)
            #expect(result.response.headers["Location"] == "/get")
        }

        @Test("a per-redirect closure can change the next request or stop")
        func decide() async throws {
            let seen = Locked<[Int]>([])
            let session = try Transport.session {
                $0.redirectPolicy = .decide { next, response in
                    seen.withLock { $0.append(response.statusCode) }
                    var next = next
                    try? next.headers.set(name: "X-Redirected", value: "1")
                    return next
                }
            }
            let result = try await session.data(for: Transport.request(.httpbin, "/redirect-to?url=/headers"))
            #expect((try Transport.json(result.data)["headers"] as? [String: String])?["X-Redirected"] == "1")
            #expect(seen.withLock { $0 } == [302])

            let stopping = try Transport.session { $0.redirectPolicy = .decide { _, _ in nil } }
            let stopped = try await stopping.data(for: Transport.request(.httpbin, "/redirect/2"))
            #expect(stopped.response.statusCode == 302)
        }

        @Test("a redirect loop ends with too many redirects")
        func loop() async throws {
            let session = try Transport.session()
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: Transport.request(.http, "/loop"))
            }
            #expect(error?.code == .tooManyRedirects)
            #expect(error?.request?.url.path == "/loop")
        }

        @Test("a download never replaces something that is not a regular file")
        func downloadTargetSafety() async throws {
            let session = try Transport.session()
            let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-target-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let error = await #expect(throws: SluiceError.self) {
                try await session.download(for: Transport.request(.http, "/files/1k.bin")) { _, _ in directory }
            }
            #expect(error?.code == .downloadFailed)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }
}
