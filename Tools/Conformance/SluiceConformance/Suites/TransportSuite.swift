import Foundation
import SluiceCore
import SluiceGzip
import SluiceTransport

/// `transport.session`: the session manager against the real servers — HTTP/1.1 and HTTP/2, content
/// decoding through the registry, redirects, downloads, and the error each failure maps to.
struct TransportSuite: ConformanceSuite {
    let name = "transport.session"
    let summary = "SessionManager against nginx and httpbin: HTTP/1.1, HTTP/2, gzip, redirects, downloads, error codes"
    let requirements: ConformanceRequirements = .servers

    func run(in context: ConformanceContext) async throws -> [CaseResult] {
        let servers = try context.requireServers()
        guard let http = servers.url(for: .http), let https = servers.url(for: .https), let httpbin = servers.url(for: .httpbin)
        else { throw ConformanceError("the servers file lacks nginx or httpbin addresses") }
        var configuration = SessionConfiguration()
        if let ca = servers.caFile { configuration.tls.trustedCertificatesPEM = try Data(contentsOf: URL(fileURLWithPath: ca)) }
        configuration.registry = try SerializerRegistry(plugins: [GzipPlugin()])
        let session = SessionManager(configuration: configuration)
        var results: [CaseResult] = []

        func check(_ id: String, _ body: () async throws -> String?) async {
            results.append(await CaseResult.check(id, body))
        }
        func url(_ base: URL, _ path: String) -> URL { URL(string: base.absoluteString + path)! }

        await check("GET over HTTP/1.1") {
            let result = try await session.data(for: HTTPRequest(url: url(http, "/files/small.txt")))
            return result.response.httpVersion == .http1_1 && result.data == Data("Hello from Sluice\n".utf8)
                ? nil : "got \(result.response) with \(result.data.count) bytes"
        }
        await check("HTTPS negotiates HTTP/2 with the test CA") {
            let result = try await session.data(for: HTTPRequest(url: url(https, "/status")))
            return result.response.httpVersion == .http2 ? nil : "negotiated \(result.response.httpVersion)"
        }
        await check("gzip body decoded through the registry") {
            let result = try await session.data(for: HTTPRequest(url: url(httpbin, "/gzip")))
            let json = try JSONSerialization.jsonObject(with: result.data) as? [String: Any]
            return json?["gzipped"] as? Bool == true ? nil : "body was not decoded"
        }
        await check("redirects followed, one transaction per hop") {
            let result = try await session.data(for: HTTPRequest(url: url(httpbin, "/redirect/2")))
            return result.metrics.redirectCount == 2 && result.request.url.path == "/get"
                ? nil : "\(result.metrics.redirectCount) redirects, ended at \(result.request.url)"
        }
        await check("download written to the destination") {
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-conformance-\(UUID())")
            defer { try? FileManager.default.removeItem(at: target) }
            _ = try await session.download(for: HTTPRequest(url: url(http, "/files/1m.bin"))) { _, _ in target }
            let size = try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int
            return size == 1 << 20 ? nil : "wrote \(size ?? 0) bytes"
        }
        await check("idle timeout is transport.idleTimedOut") {
            var request = HTTPRequest(url: url(httpbin, "/delay/3"))
            request.timeout = 1
            do throws(SluiceError) {
                _ = try await session.data(for: request)
                return "no error"
            } catch {
                return error.code == .idleTimedOut ? nil : "got \(error.code)"
            }
        }
        await check("a missing resource is a 404 response, not an error") {
            let result = try await session.data(for: HTTPRequest(url: url(http, "/files/missing")))
            return result.response.statusCode == 404 ? nil : "status \(result.response.statusCode)"
        }
        await check("an untrusted certificate is security.untrustedChain") {
            let untrusting = SessionManager()
            do throws(SluiceError) {
                _ = try await untrusting.data(for: HTTPRequest(url: url(https, "/status")))
                return "no error"
            } catch {
                return error.code == .untrustedChain ? nil : "got \(error.code)"
            }
        }
        return results
    }
}
