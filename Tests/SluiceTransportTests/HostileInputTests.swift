import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    /// What a hostile caller or server must not get through the transport: a method that injects header
    /// lines, `Content-Length` fields that disagree, responses that never end.
    @Suite("Hostile requests and responses", .serialized)
    struct HostileInputTests {
        static let hostileMethods = [
            "GET /x HTTP/1.1\r\nX-Injected: yes\r\nX-Pad:", "PRO PFIND", "GET\0X", "", "GET\n", "G(ET)", "GÉT",
        ]

        static let ok = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)

        @Test("a method that is not a token is refused before anything is sent, by every API", .tags(.server), .needsServers, arguments: hostileMethods)
        func methodRefused(method: String) async throws {
            let server = try RawTCPServer(reply: .bytes(Self.ok))
            defer { server.stop() }
            let session = try Transport.session()
            let request = HTTPRequest(url: server.url.appendingPathComponent("x"), method: HTTPMethod(rawValue: method))

            var codes: [SluiceError.Code?] = []
            codes.append(await #expect(throws: SluiceError.self) { try await session.data(for: request) }?.code)
            codes.append(await #expect(throws: SluiceError.self) {
                try await session.upload(for: request, from: .bytes(Data("body".utf8)))
            }?.code)
            codes.append(await #expect(throws: SluiceError.self) {
                try await session.download(for: request) { _, _ in URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-never-\(UUID())") }
            }?.code)
            codes.append(await #expect(throws: SluiceError.self) { try await session.bytes(for: request) }?.code)
            let completed = await withCheckedContinuation { continuation in
                session.dataTask(with: request) { continuation.resume(returning: $0) }.resume()
            }
            if case .failure(let error) = completed { codes.append(error.code) } else { codes.append(nil) }

            #expect(codes == Array(repeating: .invalidMethod, count: 5))
            #expect(server.acceptedConnections == 0, "a refused request must not even connect")
        }

        @Test("a request whose URL is not http(s) with a host is refused by the transport itself", .tags(.server), .needsServers, arguments: [
            "ftp://127.0.0.1/file", "file:///etc/passwd", "http:///path", "gopher://127.0.0.1:70/x",
        ])
        func urlRefused(url: String) async throws {
            let session = try Transport.session()
            let request = HTTPRequest(url: try #require(URL(string: url)))
            let error = await #expect(throws: SluiceError.self) { try await session.data(for: request) }
            #expect(error?.code == .invalidURL)
        }

        @Test("token methods beyond the standard ones go out as written", .tags(.server), .needsServers)
        func extensionMethodsSent() async throws {
            let server = try RawTCPServer(reply: .bytes(Self.ok))
            defer { server.stop() }
            let session = try Transport.session()
            for method in ["PROPFIND", "M-SEARCH", "PURGE"] {
                let result = try await session.data(for: HTTPRequest(url: server.url.appendingPathComponent("x"), method: HTTPMethod(rawValue: method)))
                #expect(result.data == Data("ok".utf8))
            }
            let lines = server.receivedHeads.map { String(decoding: $0.prefix { $0 != 13 }, as: UTF8.self) }
            #expect(lines == ["PROPFIND /x HTTP/1.1", "M-SEARCH /x HTTP/1.1", "PURGE /x HTTP/1.1"])
        }

        @Test("Content-Length fields that disagree are a framing error, and the connection is not reused", .tags(.server), .needsServers, arguments: [
            "Content-Length: 5\r\nContent-Length: 96\r\n", "Content-Length: 5, 96\r\n", "Content-Length: 96\r\ncontent-length: 5\r\n",
        ])
        func conflictingContentLength(fields: String) async throws {
            let smuggled = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nsmuggle"
            let hostile = Data("HTTP/1.1 200 OK\r\n\(fields)\r\nhello".utf8) + Data(smuggled.utf8)
                + Data(repeating: UInt8(ascii: "."), count: max(0, 96 - 5 - smuggled.utf8.count))
            let good = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
            let server = try RawTCPServer(reply: .keepAlive([hostile, good]))
            defer { server.stop() }
            let session = try Transport.session()
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: HTTPRequest(url: server.url.appendingPathComponent("first")))
            }
            #expect(error?.code == .invalidResponse)
            let next = try await session.data(for: HTTPRequest(url: server.url.appendingPathComponent("second")))
            #expect(next.data == Data("ok".utf8))
            #expect(server.acceptedConnections == 2, "the aborted connection must not carry the next request")
        }

        @Test("identical Content-Length fields, repeated or listed, stay accepted", .tags(.server), .needsServers, arguments: [
            "Content-Length: 5\r\nContent-Length: 5\r\n", "Content-Length: 5, 5\r\n", "Content-Length: 5\r\n",
        ])
        func identicalContentLength(fields: String) async throws {
            let server = try RawTCPServer(reply: .bytes(Data("HTTP/1.1 200 OK\r\n\(fields)Connection: close\r\n\r\nhello".utf8)))
            defer { server.stop() }
            let result = try await Transport.session().data(for: HTTPRequest(url: server.url))
            #expect(result.data == Data("hello".utf8))
            #expect(result.response.expectedContentLength == 5)
        }

        @Test("endless 102 Processing answers stop at the interim-response cap, idle timeout or not", .tags(.server), .needsServers)
        func endlessInterimResponses() async throws {
            let server = try RawTCPServer(reply: .trickle(
                first: Data(), repeated: Data("HTTP/1.1 102 Processing\r\n\r\n".utf8), every: .milliseconds(20)))
            defer { server.stop() }
            let session = try Transport.session {
                $0.idleTimeout = 2
                $0.resourceTimeout = 15  // without the cap, the task would end only here
            }
            // The cap, not a timeout, ended it: the error says so (the resource timeout would be
            // resourceTimedOut, the idle one idleTimedOut), so no clock needs to.
            let error = await #expect(throws: SluiceError.self) { try await session.data(for: HTTPRequest(url: server.url)) }
            #expect(error?.code == .invalidResponse)
            #expect(error?.message.contains("interim") == true)
        }

        @Test("a few interim responses before the final one are fine", .tags(.server), .needsServers)
        func someInterimResponses() async throws {
            let interim = String(repeating: "HTTP/1.1 102 Processing\r\n\r\n", count: 3) + "HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
            let server = try RawTCPServer(reply: .bytes(Data((interim + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok").utf8)))
            defer { server.stop() }
            let result = try await Transport.session { $0.maximumInterimResponses = 4 }.data(for: HTTPRequest(url: server.url))
            #expect(result.response.statusCode == 200)
            #expect(result.data == Data("ok".utf8))
        }

        @Test("a body trickling a byte a second fails the minimum transfer rate, though it is never idle", .tags(.server), .needsServers)
        func minimumTransferRate() async throws {
            let server = try RawTCPServer(reply: .trickle(
                first: Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8), repeated: Data("x".utf8), every: .milliseconds(500)))
            defer { server.stop() }
            let session = try Transport.session {
                $0.idleTimeout = 5
                $0.minimumTransferRate = MinimumTransferRate(bytesPerSecond: 100, window: 2)
            }
            let started = ContinuousClock.now
            let error = await #expect(throws: SluiceError.self) { try await session.data(for: HTTPRequest(url: server.url)) }
            #expect(error?.code == .transferTooSlow)
            // Judged over its 2 s window, it ends in 2 to 5 s; the bound only tells that from the 500 s the
            // trickle takes to its end. 60 s: one clean-clone run on a busy machine took 30.5 s here.
            #expect(ContinuousClock.now - started < .seconds(60))
        }

        @Test("the defaults bound every task: resource 7 days, idle 60 s, 32 interim answers, in-memory decoding bounded")
        func defaults() {
            let configuration = SessionConfiguration()
            #expect(configuration.resourceTimeout == 604_800)
            #expect(configuration.idleTimeout == 60)
            #expect(configuration.maximumInterimResponses == 32)
            #expect(configuration.minimumTransferRate == nil)
            #expect(configuration.contentCodingLimits == .inMemory)
            #expect(configuration.contentCodingLimits.maximumRatio == 100)
            #expect(configuration.contentCodingLimits.maximumOutputBytes == 128 << 20)
            #expect(configuration.streamingContentCodingLimits == .streaming)
        }
    }
}
