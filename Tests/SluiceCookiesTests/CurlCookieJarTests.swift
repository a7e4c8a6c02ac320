import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceCookies

/// Interoperability with the curl command line's cookie engine over loopback: curl reads a file the store wrote
/// and sends what the store would send; the store reads a file curl wrote and sends what curl would send. The
/// server is a Python script this test starts and stops; curl reaches it under host names with `--resolve`.
@Suite("Cookie files with curl", .timeLimit(.minutes(1)))
struct CurlCookieJarTests {
    /// The `Set-Cookie` fields the server sends on `/set/...`.
    static let setCookies = [
        "plain=1; Path=/",
        "persist=abc; Max-Age=3600; Path=/docs; HttpOnly",
        "dom=x; Domain=example.test; Path=/",
        "ss=y; SameSite=Lax; Max-Age=100",
        "q=\"quoted\"; Path=/",
        "exp=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
    ]

    /// Answers every GET with the request's Cookie field as the body; `/set/...` also sends ``setCookies``.
    static let serverScript = """
        import http.server, signal, sys
        signal.alarm(60)
        SET = \(pythonList(setCookies))
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = (self.headers.get('Cookie') or '').encode()
                self.send_response(200)
                if self.path.startswith('/set/'):
                    for field in SET:
                        self.send_header('Set-Cookie', field)
                self.send_header('Content-Length', str(len(body)))
                self.send_header('Connection', 'close')
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    static func pythonList(_ strings: [String]) -> String {
        "[" + strings.map { "'" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'" }
            .joined(separator: ", ") + "]"
    }

    /// The running server and its port.
    final class Server {
        let process = Process()
        let port: Int

        init() throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", CurlCookieJarTests.serverScript]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                process.terminate()
                process.waitUntilExit()
                throw ServerFailure()
            }
            self.port = port
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    struct ServerFailure: Error, CustomStringConvertible {
        var description: String { "python3 did not start the loopback server" }
    }

    /// Runs curl with `arguments` (bounded to 10 seconds) and returns what it wrote to standard output.
    static func curl(_ arguments: [String]) async throws -> String {
        let curl = try await ChildProcess.run(executable: "curl", arguments: ["--silent", "--show-error", "--max-time", "10"] + arguments)
        try #require(curl.status == 0, "curl \(arguments.joined(separator: " ")) failed")
        return curl.output
    }

    /// The `name=value` pairs of a Cookie field, as a set (curl orders cookies of equal path length its own way).
    static func pairs(_ field: String?) -> Set<String> {
        Set((field ?? "").components(separatedBy: "; ").filter { !$0.isEmpty })
    }

    static let hosts = ["www.example.test", "other.example.test", "example.test"]
    static let paths = ["/", "/docs", "/docs/page", "/docsets", "/set/x", "/app/deep/page"]

    /// curl's `--resolve` arguments that send every test host to the server.
    static func resolve(_ port: Int) -> [String] { hosts.flatMap { ["--resolve", "\($0):\(port):127.0.0.1"] } }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-curl-jar-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("curl reads the store's file and sends what the store sends; curl's rewrite loads back the same")
    func curlReadsSluiceFile() async throws {
        let server = try Server()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = Date()
        let origin = testURL("http://www.example.test:\(server.port)/app/deep/page")
        let store = CookieStore()
        for field in [
            "host=1; Path=/", "dom=2; Domain=example.test; Path=/", "docs=3; Path=/docs; Max-Age=3600",
            "deep=4", "ho=5; HttpOnly; Path=/; Max-Age=7200", "q=\"a b\"; Path=/", "session=6; Path=/docs",
        ] {
            #expect((try? store.setCookie(field, for: origin, at: now).get()) != nil, "\(field)")
        }
        let jar = folder.appendingPathComponent("sluice.txt")
        try store.save(to: jar, includingSessionCookies: true, at: now)

        for host in Self.hosts {
            for path in Self.paths {
                let url = "http://\(host):\(server.port)\(path)"
                let sent = try await Self.curl(["--cookie", jar.path] + Self.resolve(server.port) + [url])
                #expect(Self.pairs(sent) == Self.pairs(store.cookieHeader(for: testURL(url), at: now)), "\(url)")
            }
        }

        // curl writes the file back; the store reads it to the same cookies.
        let rewritten = folder.appendingPathComponent("curl.txt")
        _ = try await Self.curl(
            ["--cookie", jar.path, "--cookie-jar", rewritten.path] + Self.resolve(server.port)
                + ["http://www.example.test:\(server.port)/"])
        let reloaded = CookieStore()
        try reloaded.load(from: rewritten, at: now)
        func fields(_ cookie: HTTPCookie) -> String {
            "\(cookie.name)=\(cookie.value) \(cookie.domain) \(cookie.hostOnly) \(cookie.path) "
                + "\(Int64(cookie.expires?.timeIntervalSince1970 ?? 0)) \(cookie.secure) \(cookie.httpOnly)"
        }
        #expect(Set(reloaded.allCookies.map(fields)) == Set(store.allCookies.map(fields)))
        #expect(reloaded.count == 7)
    }

    @Test("the store reads the file curl wrote and sends what curl sends")
    func sluiceReadsCurlFile() async throws {
        let server = try Server()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jar = folder.appendingPathComponent("curl.txt")
        let setURL = "http://www.example.test:\(server.port)/set/page"
        _ = try await Self.curl(["--cookie-jar", jar.path] + Self.resolve(server.port) + [setURL])
        let now = Date()

        let loaded = CookieStore()
        try loaded.load(from: jar, at: now)
        #expect(Set(loaded.allCookies.map(\.name)) == ["plain", "persist", "dom", "ss", "q"])
        #expect(loaded.allCookies.first { $0.name == "persist" }?.httpOnly == true)
        #expect(loaded.allCookies.first { $0.name == "dom" }?.hostOnly == false)
        #expect(loaded.allCookies.first { $0.name == "q" }?.value == "\"quoted\"")

        // The same fields parsed by the store itself.
        let parsed = CookieStore()
        parsed.setCookies(from: headers(Self.setCookies.map { ("Set-Cookie", $0) }), for: testURL(setURL), at: now)

        for host in Self.hosts {
            for path in Self.paths {
                let url = "http://\(host):\(server.port)\(path)"
                let sent = try await Self.curl(["--cookie", jar.path] + Self.resolve(server.port) + [url])
                #expect(Self.pairs(loaded.cookieHeader(for: testURL(url), at: now)) == Self.pairs(sent), "\(url)")
                #expect(Self.pairs(parsed.cookieHeader(for: testURL(url), at: now)) == Self.pairs(sent), "\(url)")
            }
        }
    }
}
