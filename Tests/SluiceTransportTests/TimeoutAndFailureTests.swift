import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("Timeouts and connection failures", .serialized)
    struct TimeoutAndFailureTests {
        @Test("no bytes for longer than the idle timeout is an idle timeout")
        func idle() async throws {
            let session = try Transport.session()
            // A connection already open and reused is still connected: the timeout is an idle one.
            _ = try await session.data(for: Transport.request(.httpbin, "/get"))
            var request = try Transport.request(.httpbin, "/delay/5")
            request.timeout = 1
            let started = ContinuousClock.now
            let error = await #expect(throws: SluiceError.self) { try await session.data(for: request) }
            #expect(error?.code == .idleTimedOut)
            #expect(ContinuousClock.now - started < .seconds(4))
        }

        @Test("a transfer longer than the resource timeout is a resource timeout")
        func resource() async throws {
            let session = try Transport.session { $0.resourceTimeout = 1.5 }
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: Transport.request(.httpbin, "/drip?duration=4&numbytes=8&delay=0"))
            }
            #expect(error?.code == .resourceTimedOut)
        }

        @Test("a TLS handshake that never completes is a connect timeout")
        func connect() async throws {
            let server = try RawTCPServer(reply: .silent)
            defer { server.stop() }
            let session = try Transport.session { $0.connectTimeout = 1 }
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: HTTPRequest(url: URL(string: "https://127.0.0.1:\(server.port)/")!))
            }
            #expect(error?.code == .connectTimedOut)
        }

        @Test("nothing listening is cannotConnect with libcurl's code")
        func refused() async throws {
            let server = try RawTCPServer(reply: .neverAccept)
            let port = server.port
            server.stop()
            let session = try Transport.session()
            let error = await #expect(throws: SluiceError.self) {
                try await session.data(for: HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
            }
            #expect(error?.code == .cannotConnect)
            #expect(error?.library?.code == 7)
            #expect(error?.request?.url.port == port)
        }
    }
}
