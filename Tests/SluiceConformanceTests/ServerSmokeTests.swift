import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

/// Reaches every real server through plain libcurl: proves the C targets link and the test
/// environment is up. Fails, naming the server and `make servers`, when one is not running.
@Suite("Test servers through plain libcurl", .tags(.server), .needsServers, .serialized)
struct ServerSmokeTests {
    @Test("nginx over HTTP serves status and static files of known sizes")
    func plainHTTP() throws {
        let base = try TestEnvironment.url(for: .http)
        let status = ServerProbe.get(base.appendingPathComponent("status"))
        #expect(status.succeeded, "\(status.curlMessage)")
        #expect(status.status == 200)
        #expect(status.httpVersion == "1.1")
        let small = ServerProbe.get(base.appendingPathComponent("files/small.txt"))
        #expect(String(decoding: small.body, as: UTF8.self) == "Hello from Sluice\n")
        let large = ServerProbe.get(base.appendingPathComponent("files/16m.bin"))
        #expect(large.body.count == 16 << 20)
    }

    @Test("nginx over HTTPS negotiates HTTP/2 with the test CA")
    func https() throws {
        let servers = try TestEnvironment.requireServers()
        let base = try TestEnvironment.url(for: .https)
        let trusted = ServerProbe.get(base.appendingPathComponent("status"), tls: .init(caFile: servers.caFile))
        #expect(trusted.succeeded, "\(trusted.curlMessage)")
        #expect(trusted.status == 200)
        #expect(trusted.httpVersion == "2")
        // Without the test CA the chain is untrusted: CURLE_PEER_FAILED_VERIFICATION (60).
        let untrusted = ServerProbe.get(base.appendingPathComponent("status"), tls: .init(caFile: "/dev/null"))
        #expect(!untrusted.succeeded)
    }

    @Test("nginx with mutual TLS accepts the client identity and refuses a client without one")
    func mutualTLS() throws {
        let servers = try TestEnvironment.requireServers()
        let base = try TestEnvironment.url(for: .mutualTLS)
        let identity = ServerProbe.TLS(
            caFile: servers.caFile, clientCertificate: servers.clientCertificate, clientKey: servers.clientKey)
        let accepted = ServerProbe.get(base.appendingPathComponent("status"), tls: identity)
        #expect(accepted.status == 200, "\(accepted.curlMessage)")
        let refused = ServerProbe.get(base.appendingPathComponent("status"), tls: .init(caFile: servers.caFile))
        #expect(!(refused.succeeded && refused.status == 200))
    }

    @Test("httpbin under gunicorn echoes requests")
    func httpbin() throws {
        let base = try TestEnvironment.url(for: .httpbin)
        let result = ServerProbe.get(base.appendingPathComponent("get"))
        #expect(result.status == 200, "\(result.curlMessage)")
        let echo = try JSONSerialization.jsonObject(with: result.body) as? [String: Any]
        #expect((echo?["url"] as? String)?.hasSuffix("/get") == true)
        let missing = ServerProbe.get(base.appendingPathComponent("status/404"))
        #expect(missing.status == 404)
    }

    @Test("the environment.servers, transport.session, transport.connections and security.policy conformance suites pass")
    func serverSuites() async throws {
        _ = try TestEnvironment.requireServers()
        let report = await ConformanceRunner.run(
            ConformanceRunner.allSuites.filter { ["environment.servers", "transport.session", "transport.connections", "security.policy"].contains($0.name) },
            in: VectorSuiteTests.context)
        #expect(report.suites.count == 4)
        for suite in report.suites {
            #expect(suite.error == nil, "\(suite.error ?? "")")
            for result in suite.cases where !result.passed { Issue.record("\(result.id): \(result.detail ?? "")") }
        }
    }
}
