import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import SluiceOpenAPI
import Sluice

// The samples of docs/openapi.md, compiled. They call the httpbin client generated in Tests/HTTPBinAPI, as a
// user calls the client generated from their own document.
func makeClient(serverURL: URL) -> Client {
    var configuration = SessionConfiguration()
    configuration.defaultHeaders = ["User-Agent": "MyApp/1.0"]
    configuration.idleTimeout = 30
    let session = SessionManager(configuration: configuration)
    return Client(serverURL: serverURL, transport: SluiceClientTransport(transport: session))
}

func echoedHeaders(_ client: Client) async throws -> [String: String] {
    let output = try await client.getHeaders()
    return try output.ok.body.json.headers.additionalProperties
}

func countDrippedBytes(_ client: Client) async throws -> Int {
    let body = try await client.drip(query: .init(duration: 2, numbytes: 5)).ok.body.binary
    var received = 0
    for try await chunk in body {
        received += chunk.count  // each chunk as it arrives; the transfer waits while this loop is behind
    }
    return received
}

func upload(_ client: Client, chunks: AsyncStream<ArraySlice<UInt8>>) async throws {
    let body = OpenAPIRuntime.HTTPBody(chunks, length: .unknown)  // sent chunked, as the stream produces it
    _ = try await client.putBytes(body: .binary(body)).ok
}

func uploadAgainOnRedirect(_ client: Client, bytes: [UInt8]) async throws {
    // .multiple: the body can be read again, so a 307 or 308 redirect sends it again.
    let body = OpenAPIRuntime.HTTPBody(bytes, length: .known(Int64(bytes.count)), iterationBehavior: .multiple)
    _ = try await client.redirectTo(query: .init(url: "/post", statusCode: 307), body: .binary(body)).ok
}

func cancelSlowCall(_ client: Client) async {
    let call = Task { try await client.drip(query: .init(duration: 60, numbytes: 10)) }
    call.cancel()
    do {
        _ = try await call.value
    } catch let error as ClientError where (error.underlyingError as? SluiceError)?.code == .cancelled {
        print("cancelled")
    } catch {
        print("failed: \(error)")
    }
}

func describeFailure(_ client: Client) async -> String {
    do {
        return try await client.getHeaders().ok.body.json.headers.additionalProperties["Host"] ?? ""
    } catch let error as ClientError {
        guard let sluiceError = error.underlyingError as? SluiceError else { return "\(error)" }
        switch sluiceError.code {
        case .cannotConnect, .connectTimedOut, .cannotResolveHost: return "offline"
        case .cancelled: return "cancelled"
        default: return sluiceError.message
        }
    } catch {
        return "\(error)"
    }
}

func teapot(_ client: Client) async throws -> String {
    switch try await client.getStatus(path: .init(code: 418)) {
    case .ok, .noContent:
        return "documented"
    case .undocumented(let statusCode, let payload):
        guard let body = payload.body else { return "\(statusCode)" }
        return "\(statusCode): \(try await String(collecting: body, upTo: 1 << 16))"
    }
}
