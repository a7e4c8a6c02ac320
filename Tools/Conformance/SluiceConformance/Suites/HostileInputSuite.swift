import Foundation
import SluiceCore
import SluiceGzip
import SluiceTransport

/// `security.hostile`: what a hostile caller, server or plugin must get from Sluice — a typed error and
/// nothing else. Each case was once a hole: a method that injected header lines, `Content-Length`
/// fields that disagree, responses that never end, decompression bombs under the default limits.
/// Every case runs against loopback servers of its own (``RawTCPServer``); none needs the test servers.
struct HostileInputSuite: ConformanceSuite {
    let name = "security.hostile"
    let summary = "hostile methods, framing, endless and trickling responses, bombs: typed errors, never a crash or a hang"

    func run(in context: ConformanceContext) async throws -> [CaseResult] {
        var results: [CaseResult] = []
        func check(_ id: String, _ body: () async throws -> String?) async {
            results.append(await CaseResult.check(id, body))
        }
        let ok = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)

        for method in ["GET /x HTTP/1.1\r\nX-Injected: yes\r\nX-Pad:", "PRO PFIND", "GET\0X"] {
            await check("method \(method.debugDescription) is refused before connecting") {
                let server = try RawTCPServer(reply: .bytes(ok))
                defer { server.stop() }
                let code = await Self.failure(of: SessionManager(), HTTPRequest(url: server.url, method: HTTPMethod(rawValue: method)))
                guard code == .invalidMethod else { return "expected request.invalidMethod, got \(code.map { "\($0)" } ?? "a response")" }
                return server.acceptedConnections == 0 ? nil : "the server was reached \(server.acceptedConnections) time(s)"
            }
        }
        await check("Content-Length 5 then 96 is transport.invalidResponse and the connection is not reused") {
            let hostile = Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 96\r\n\r\nhello".utf8)
                + Data("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nsmuggle".utf8) + Data(repeating: 0x2E, count: 45)
            let server = try RawTCPServer(reply: .keepAlive([hostile, ok]))
            defer { server.stop() }
            let session = SessionManager()
            let code = await Self.failure(of: session, HTTPRequest(url: server.url))
            guard code == .invalidResponse else { return "expected transport.invalidResponse, got \(code.map { "\($0)" } ?? "a response")" }
            let next = try await session.data(for: HTTPRequest(url: server.url))
            guard next.data == Data("ok".utf8) else { return "the next request read \(next.data.count) bytes of leftovers" }
            return server.acceptedConnections == 2 ? nil : "\(server.acceptedConnections) connection(s) for two requests"
        }
        await check("identical Content-Length fields are accepted") {
            let server = try RawTCPServer(reply: .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello".utf8)))
            defer { server.stop() }
            let result = try await SessionManager().data(for: HTTPRequest(url: server.url))
            return result.data == Data("hello".utf8) ? nil : "got \(result.data.count) bytes"
        }
        await check("endless 102 Processing stops at the interim-response cap") {
            let server = try RawTCPServer(reply: .trickle(
                first: Data(), repeated: Data("HTTP/1.1 102 Processing\r\n\r\n".utf8), every: .milliseconds(10)))
            defer { server.stop() }
            var configuration = SessionConfiguration()
            configuration.idleTimeout = 2
            configuration.resourceTimeout = 15
            let code = await Self.failure(of: SessionManager(configuration: configuration), HTTPRequest(url: server.url))
            return code == .invalidResponse ? nil : "expected transport.invalidResponse, got \(code.map { "\($0)" } ?? "a response")"
        }
        await check("a byte every 500 ms fails a minimum rate of 100 B/s over 2 s") {
            let server = try RawTCPServer(reply: .trickle(
                first: Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8), repeated: Data("x".utf8), every: .milliseconds(500)))
            defer { server.stop() }
            var configuration = SessionConfiguration()
            configuration.minimumTransferRate = MinimumTransferRate(bytesPerSecond: 100, window: 2)
            let code = await Self.failure(of: SessionManager(configuration: configuration), HTTPRequest(url: server.url))
            return code == .transferTooSlow ? nil : "expected transport.transferTooSlow, got \(code.map { "\($0)" } ?? "a response")"
        }
        await check("the default configuration bounds every task (resource timeout, interim cap)") {
            let configuration = SessionConfiguration()
            guard let resource = configuration.resourceTimeout, resource <= 7 * 24 * 3600 else { return "no resource timeout" }
            return configuration.maximumInterimResponses > 0 ? nil : "no interim-response cap"
        }
        await check("a gzip bomb in a data task stops under the default in-memory limits") {
            let bomb = try ContentCodingContract.encode(GzipContentCoding(.gzip), [UInt8](repeating: 0, count: 64 << 20))
            let head = Data("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\nConnection: close\r\n\r\n".utf8)
            let server = try RawTCPServer(reply: .bytes(head + Data(bomb)))
            defer { server.stop() }
            var configuration = SessionConfiguration()
            configuration.registry = try SerializerRegistry(plugins: [GzipPlugin()])
            let code = await Self.failure(of: SessionManager(configuration: configuration), HTTPRequest(url: server.url))
            return code == .contentCodingRatioLimit || code == .contentCodingOutputLimit
                ? nil : "expected a content-coding limit, got \(code.map { "\($0)" } ?? "the whole body")"
        }
        return results
    }

    /// The code `request` fails with, or `nil` when it succeeds.
    private static func failure(of session: SessionManager, _ request: HTTPRequest) async -> SluiceError.Code? {
        do throws(SluiceError) {
            _ = try await session.data(for: request)
            return nil
        } catch {
            return error.code
        }
    }
}
