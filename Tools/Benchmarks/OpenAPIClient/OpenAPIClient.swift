import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AsyncHTTPClient
import HTTPBinAPI
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import SluiceOpenAPI
import SluiceTransport

/// One run of the client generated from Tests/HTTPBinAPI/openapi.yaml over one transport:
/// `openapi-client TRANSPORT SCENARIO SERVER_URL REQUESTS CONCURRENCY`, printing one JSON line
/// `{"operations": N, "bytes": B, "seconds": S}`.
///
/// - TRANSPORT: `sluice` (SluiceClientTransport over a SessionManager), `ahc`
///   (swift-openapi-async-http-client) or `urlsession` (swift-openapi-urlsession).
/// - SCENARIO: `get` (the getArgs operation, a small JSON answer decoded) or `bytes` (getBytes of 1 MiB,
///   the body read as it arrives).
@main
struct OpenAPIClient {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 5, let server = URL(string: arguments[2]), let total = Int(arguments[3]),
            let concurrency = Int(arguments[4]), concurrency > 0
        else {
            FileHandle.standardError.write(Data("usage: openapi-client sluice|ahc|urlsession get|bytes SERVER_URL REQUESTS CONCURRENCY\n".utf8))
            exit(2)
        }
        do {
            let (transport, shutdown) = try makeTransport(arguments[0], concurrency: concurrency)
            let client = Client(serverURL: server, transport: transport)
            let operation: @Sendable () async throws -> Int64 =
                switch arguments[1] {
                case "get": { try await get(client) }
                case "bytes": { try await bytes(client) }
                default: throw CocoaError(.featureUnsupported)
                }
            let started = ContinuousClock.now
            let perWorker = total / concurrency
            let received = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        var bytes: Int64 = 0
                        for _ in 0..<perWorker { bytes += try await operation() }
                        return bytes
                    }
                }
                var sum: Int64 = 0
                for try await part in group { sum += part }
                return sum
            }
            let elapsed = ContinuousClock.now - started
            try await shutdown()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(#"{"operations": \#(perWorker * concurrency), "bytes": \#(received), "seconds": \#(seconds)}"#)
        } catch {
            FileHandle.standardError.write(Data("\(arguments[0]) \(arguments[1]) failed: \(error)\n".utf8))
            exit(1)
        }
    }

    static func makeTransport(_ name: String, concurrency: Int) throws -> (any ClientTransport, @Sendable () async throws -> Void) {
        switch name {
        case "sluice":
            var configuration = SessionConfiguration()
            configuration.maximumConnectionsPerHost = concurrency
            let session = SessionManager(configuration: configuration)
            return (SluiceClientTransport(transport: session), { session.invalidate(cancelingTasks: false) })
        case "ahc":
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
            let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            return (AsyncHTTPClientTransport(configuration: .init(client: httpClient)), { try await httpClient.shutdown() })
        case "urlsession":
            let configuration = URLSessionConfiguration.default
            configuration.httpMaximumConnectionsPerHost = concurrency
            let session = URLSession(configuration: configuration)
            return (URLSessionTransport(configuration: .init(session: session)), {})
        default:
            throw CocoaError(.featureUnsupported)
        }
    }

    /// The getArgs operation, its JSON decoded; the bytes of its URL field, so the work is not optimised away.
    static func get(_ client: Client) async throws -> Int64 {
        let echo = try await client.getArgs(query: .init(name: "bench", count: 1)).ok.body.json
        return Int64(echo.url.utf8.count)
    }

    /// getBytes of 1 MiB, the body read chunk by chunk as it arrives.
    static func bytes(_ client: Client) async throws -> Int64 {
        let body = try await client.getBytes(path: .init(n: 1 << 20)).ok.body.binary
        var count: Int64 = 0
        for try await chunk in body { count += Int64(chunk.count) }
        return count
    }
}
