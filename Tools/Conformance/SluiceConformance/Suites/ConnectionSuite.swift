import Foundation
import SluiceCookies
import SluiceCore
import SluiceTransport

/// `transport.connections`: where connections go and what survives a failure, against the servers — nginx
/// on a Unix socket, a connection override, an HTTP proxy with `CONNECT` (tinyproxy), a SOCKS5h proxy with
/// credentials (microsocks), a PKCS#12 client identity, a download cut part way resumed whole, and a cookie
/// store that a redirect's cookie goes through.
struct ConnectionSuite: ConformanceSuite {
    let name = "transport.connections"
    let summary = "Unix sockets, connection overrides, HTTP and SOCKS5h proxies, PKCS#12 identities, resume after a cut, cookies"
    let requirements: ConformanceRequirements = .servers

    func run(in context: ConformanceContext) async throws -> [CaseResult] {
        let servers = try context.requireServers()
        guard let http = servers.url(for: .http), let https = servers.url(for: .https), let mutual = servers.url(for: .mutualTLSStrict)
        else { throw ConformanceError("the servers file lacks nginx's addresses") }
        func value(_ key: String) throws -> String {
            guard let value = servers.values[key] else {
                throw ConformanceError("\(key) is not set; start the servers with \(ServerEnvironment.startCommand)")
            }
            return value
        }
        var configuration = SessionConfiguration()
        if let ca = servers.caFile { configuration.tls.trustedCertificatesPEM = try Data(contentsOf: URL(fileURLWithPath: ca)) }
        func session(_ adjust: (inout SessionConfiguration) -> Void) -> SessionManager {
            var adjusted = configuration
            adjust(&adjusted)
            return SessionManager(configuration: adjusted)
        }
        var results: [CaseResult] = []
        func check(_ id: String, _ body: () async throws -> String?) async {
            results.append(await CaseResult.check(id, body))
        }

        await check("a Unix socket reaches nginx whatever the URL's host") {
            let path = try value("SLUICE_HTTP_UNIX_SOCKET")
            let socket = session { $0.connection.unixSocketPath = path }
            let result = try await socket.data(for: HTTPRequest(url: URL(string: "http://sluice-socket.invalid/status")!))
            return result.response.statusCode == 200 ? nil : "status \(result.response.statusCode)"
        }
        await check("an override connects elsewhere and keeps the URL's name for TLS") {
            var request = HTTPRequest(url: URL(string: "https://localhost/status")!)
            request.connection = ConnectionSettings(overrides: [
                ConnectionOverride(host: "localhost", port: 443, targetHost: "127.0.0.1", targetPort: https.port),
            ])
            let result = try await session { _ in }.data(for: request)
            return result.response.statusCode == 200 ? nil : "status \(result.response.statusCode)"
        }
        await check("https through an HTTP proxy with credentials (CONNECT)") {
            let proxy = Proxy(url: URL(string: try value("SLUICE_TINYPROXY_URL"))!, user: "proxy", password: "secret")
            let result = try await session { $0.proxy = .proxy(proxy) }.data(for: HTTPRequest(url: URL(string: https.absoluteString + "/status")!))
            return result.response.statusCode == 200 ? nil : "status \(result.response.statusCode)"
        }
        await check("a SOCKS5h proxy with a user name and password") {
            let socks = URL(string: try value("SLUICE_SOCKS_URL").replacingOccurrences(of: "socks5://", with: "socks5h://"))!
            let proxy = Proxy(url: socks, user: "sock", password: "secret")
            let result = try await session { $0.proxy = .proxy(proxy) }
                .data(for: HTTPRequest(url: URL(string: "http://localhost:\(http.port ?? 80)/status")!))
            return result.response.statusCode == 200 ? nil : "status \(result.response.statusCode)"
        }
        await check("a PKCS#12 identity passes mutual TLS") {
            let identity = try TLSConfiguration.ClientIdentity(
                pkcs12File: try value("SLUICE_CLIENT_P12"), passphrase: try value("SLUICE_CLIENT_KEY_PASSPHRASE"))
            let result = try await session { $0.tls.clientIdentity = identity }.data(for: HTTPRequest(url: URL(string: mutual.absoluteString + "/status")!))
            return result.response.statusCode == 200 ? nil : "status \(result.response.statusCode)"
        }
        await check("a download cut part way carries resume data, and resuming completes it") {
            guard let cutting = servers.faultURL("reset-mid-body"), let passing = servers.faultURL("pass") else {
                throw ConformanceError("the fault proxy's ports are not configured")
            }
            let manager = session { _ in }
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-conformance-\(UUID())")
            defer { try? FileManager.default.removeItem(at: target) }
            let failure: SluiceError
            do throws(SluiceError) {
                _ = try await manager.download(for: HTTPRequest(url: URL(string: cutting.absoluteString + "/files/1m.bin")!)) { _, _ in target }
                return "the cut download completed"
            } catch {
                failure = error
            }
            guard let data = failure.resumeData else { return "\(failure.code) carried no resume data" }
            let resume = try ResumeData(resumeData: data)
            let moved = ResumeData(
                url: URL(string: passing.absoluteString + "/files/1m.bin")!, headers: resume.headers,
                partialFilePath: resume.partialFilePath, validator: resume.validator,
                partialFileLength: resume.partialFileLength, partialFileModified: resume.partialFileModified)
            let finished = try await manager.download(resumingWith: moved) { _, _ in target }
            let size = try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int
            return finished.resumption == .continued(fromByte: resume.partialFileLength ?? -1) && size == 1 << 20
                ? nil : "resumed as \(String(describing: finished.resumption)), \(size ?? 0) bytes"
        }
        await check("a cookie set by a redirect's answer is kept in the CookieStore and sent on the next hop") {
            guard let httpbin = servers.url(for: .httpbin) else { throw ConformanceError("the servers file lacks httpbin's address") }
            let store = CookieStore()
            let answer = try await session { $0.cookieStorage = store }
                .data(for: HTTPRequest(url: URL(string: httpbin.absoluteString + "/cookies/set?conformance=1")!))
            let echoed = (try JSONSerialization.jsonObject(with: answer.data) as? [String: Any])?["cookies"] as? [String: String]
            let kept = store.cookies(forDomain: httpbin.host ?? "").map(\.name)
            return echoed == ["conformance": "1"] && kept == ["conformance"] ? nil : "echoed \(echoed ?? [:]), kept \(kept)"
        }
        return results
    }
}
