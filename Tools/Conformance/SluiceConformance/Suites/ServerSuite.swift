import Foundation

/// `environment.servers`: each real server answers through plain libcurl — nginx over HTTP, over
/// HTTPS with HTTP/2 negotiated, over mutual TLS (refusing a client without a certificate, leniently
/// with 400 or strictly in the handshake), the trust-test servers (a chain with an intermediate CA, a
/// self-signed, a wrong-host, an expired and a not-yet-valid certificate), and httpbin.
struct ServerSuite: ConformanceSuite {
    let name = "environment.servers"
    let summary = "nginx (HTTP, HTTPS+HTTP/2, mutual TLS, trust-test certificates) and httpbin answer through libcurl"
    let requirements: ConformanceRequirements = .servers

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let servers = try context.requireServers()
        var results: [CaseResult] = []
        let trust = ServerProbe.TLS(caFile: servers.caFile)
        let identity = ServerProbe.TLS(
            caFile: servers.caFile, clientCertificate: servers.clientCertificate, clientKey: servers.clientKey)

        func check(_ id: String, _ server: ServerEnvironment.Server, path: String, tls: ServerProbe.TLS = trust,
                   expect: (ServerProbe.Result) -> String?) {
            guard let base = servers.url(for: server) else {
                results.append(CaseResult(id: id, passed: false, detail: "\(server.rawValue) is not set"))
                return
            }
            let result = ServerProbe.get(base.appendingPathComponent(path), tls: tls)
            if let problem = expect(result) {
                results.append(CaseResult(
                    id: id, passed: false,
                    detail: "\(server.displayName) at \(base): \(problem) (curl \(result.curlCode): \(result.curlMessage), status \(result.status))"))
            } else {
                results.append(CaseResult(id: id, passed: true))
            }
        }

        check("http status", .http, path: "status") { $0.status == 200 ? nil : "expected 200" }
        check("http static file", .http, path: "files/small.txt") {
            String(decoding: $0.body, as: UTF8.self) == "Hello from Sluice\n" ? nil : "unexpected body"
        }
        check("http 1 MiB file", .http, path: "files/1m.bin") {
            $0.body.count == 1 << 20 ? nil : "expected 1048576 bytes, got \($0.body.count)"
        }
        check("https status over HTTP/2", .https, path: "status") {
            $0.status != 200 ? "expected 200" : ($0.httpVersion == "2" ? nil : "negotiated HTTP/\($0.httpVersion), not 2")
        }
        check("mutual TLS with client certificate", .mutualTLS, path: "status", tls: identity) {
            $0.status == 200 ? nil : "expected 200"
        }
        check("mutual TLS refuses a client without certificate", .mutualTLS, path: "status") {
            // nginx either ends the handshake or answers 400 "No required SSL certificate was sent".
            ($0.succeeded && $0.status == 200) ? "the server accepted a client without a certificate" : nil
        }
        check("strict mutual TLS with client certificate", .mutualTLSStrict, path: "status", tls: identity) {
            $0.status == 200 ? nil : "expected 200"
        }
        check("strict mutual TLS ends the handshake without a certificate", .mutualTLSStrict, path: "status") {
            // TLS 1.3: the alert arrives after the client's Finished, as a receive error (56).
            $0.succeeded ? "the server answered a client without a certificate" : nil
        }
        check("chain root → intermediate → leaf trusted through the test CA", .chain, path: "status") {
            $0.status == 200 ? nil : "expected 200"
        }
        let selfSigned = ServerProbe.TLS(caFile: servers.certificateFile(for: .selfSigned))
        check("self-signed certificate trusted as its own anchor", .selfSigned, path: "status", tls: selfSigned) {
            $0.status == 200 ? nil : "expected 200"
        }
        // CURLE_PEER_FAILED_VERIFICATION (60) with the test CA: the name, the dates.
        for (server, what) in [(ServerEnvironment.Server.wrongHost, "a wrong-host"), (.expired, "an expired"), (.notYetValid, "a future")] {
            check("\(what) certificate is refused by verification", server, path: "status") {
                $0.curlCode == 60 ? nil : "expected curl error 60"
            }
        }
        check("httpbin /get", .httpbin, path: "get") {
            $0.status == 200 && String(decoding: $0.body, as: UTF8.self).contains("\"url\"") ? nil : "expected httpbin's echo"
        }
        return results
    }
}
