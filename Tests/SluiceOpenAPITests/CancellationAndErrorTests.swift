import Foundation
import HTTPBinAPI
import HTTPTypes
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import SluiceTestSupport
import Testing

/// What a caller sees when it cancels, and when the transport fails: SluiceErrors, inside the runtime's
/// ClientError when they were thrown by the call.
extension OpenAPISuites {
    @Suite("Cancellation and errors through SluiceClientTransport")
    struct CancellationAndErrorTests {
        @Test("cancelling the calling task while it waits for the head ends the call with .cancelled in a ClientError", .tags(.server), .needsServers)
        func cancelBeforeHead() async throws {
            // The network layer sees the request as it goes to the transport: from then on the call waits for
            // the head.
            let sent = RecordingLayer()
            let client = try HTTPBin.client(HTTPBin.session { $0.networkLayers = [sent] })
            // httpbin answers after 90 s: only cancellation ends the call sooner.
            let call = Task { try await client.drip(query: .init(duration: 1, numbytes: 1, delay: 90)) }
            try await Wait.until("the call has gone to the transport") { !sent.requests.withLock { $0.isEmpty } }
            let started = ContinuousClock.now
            call.cancel()
            let error = await #expect(throws: ClientError.self) { try await call.value }
            #expect(HTTPBin.sluiceError(try #require(error))?.code == .cancelled)
            // Ending takes milliseconds; the bound, measured from the cancel, only tells it from httpbin's
            // 90 s, with room for a busy machine's stalls.
            #expect(ContinuousClock.now - started < .seconds(60))
        }

        @Test("cancelling the task that reads a streamed body ends the read with a SluiceError .cancelled", .tags(.server), .needsServers)
        func cancelWhileReading() async throws {
            let client = try HTTPBin.client()
            let firstByte = AsyncStream<Void>.makeStream()
            let reader = Task {
                // One byte every 9 s: the body would end after 90 s.
                let body = try await client.drip(query: .init(duration: 90, numbytes: 10, delay: 0)).ok.body.binary
                var received = 0
                for try await chunk in body {
                    received += chunk.count
                    firstByte.continuation.yield()
                }
                return received
            }
            for await _ in firstByte.stream { break }
            let started = ContinuousClock.now
            reader.cancel()
            // Thrown by the body, not by the call: unwrapped.
            let error = await #expect(throws: SluiceError.self) { try await reader.value }
            #expect(error?.code == .cancelled)
            // As above: milliseconds expected, measured from the cancel; the body alone would take 90 s.
            #expect(ContinuousClock.now - started < .seconds(60))
        }

        @Test("a transport failure reaches the caller as the SluiceError inside ClientError.underlyingError")
        func transportFailure() async throws {
            // A port nothing listens on: a socket bound and never listened to.
            let closed = try #require(URL(string: "http://127.0.0.1:\(try ClosedPort.make())"))
            let error = await #expect(throws: ClientError.self) {
                try await HTTPBin.client(serverURL: closed).getHeaders()
            }
            let clientError = try #require(error)
            let sluiceError = try #require(clientError.underlyingError as? SluiceError)
            #expect(sluiceError.code == .cannotConnect)
            #expect(clientError.operationID == "getHeaders")
        }

        @Test("a base URL that makes no http URL is a typed .invalidURL")
        func invalidURL() async throws {
            let error = await #expect(throws: ClientError.self) {
                try await HTTPBin.client(serverURL: URL(string: "ftp://127.0.0.1/files")!).getHeaders()
            }
            #expect(HTTPBin.sluiceError(try #require(error))?.code == .invalidURL)
        }

        @Test("the transport alone: HEAD and 204 give no body, a GET a body of known length", .tags(.server), .needsServers)
        func transportAlone() async throws {
            let transport = SluiceClientTransport(transport: HTTPBin.session())
            let base = try HTTPBin.url()
            let (head, headBody) = try await transport.send(
                HTTPTypes.HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/get"), body: nil,
                baseURL: base, operationID: "head")
            #expect(head.status == .ok && headBody == nil)
            let (noContent, noContentBody) = try await transport.send(
                HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/status/204"), body: nil,
                baseURL: base, operationID: "status")
            #expect(noContent.status == .noContent && noContentBody == nil)
            let (ok, okBody) = try await transport.send(
                HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/bytes/10"), body: nil,
                baseURL: base, operationID: "bytes")
            #expect(ok.status == .ok && okBody?.length == .known(10))
            #expect(try await Data(collecting: try #require(okBody), upTo: 100).count == 10)
        }
    }
}
