import Foundation
import Logging
import Sluice
import SluiceTestSupport
import Testing

@Suite("cURL descriptions and logging", .serialized)
struct DiagnosticsTests {
    @Test("cURL description: method, headers, body and URL, quoted, with credentials masked")
    func cURL() throws {
        var request = HTTPRequest(url: URL(string: "https://user:secret@example.com/path?q=it's")!, method: .post)
        try request.headers.set(name: "Authorization", value: "Bearer token-123")
        try request.headers.set(name: "Cookie", value: "session=abc")
        try request.headers.set(name: "Content-Type", value: "application/json")
        request.body = .bytes(Data(#"{"name":"O'Brien"}"#.utf8))
        let description = request.cURLDescription()
        #expect(description.hasPrefix("curl \\\n\t-X 'POST'"))
        #expect(description.contains("-H 'Authorization: ***'"))
        #expect(description.contains("-H 'Cookie: ***'"))
        #expect(description.contains("-H 'Content-Type: application/json'"))
        #expect(description.contains(#"--data-binary '{"name":"O'\''Brien"}'"#))
        #expect(description.contains("'https://user:***@example.com/path?q=it'\\''s'"))
        #expect(!description.contains("secret") && !description.contains("token-123") && !description.contains("abc"))
        let unmasked = request.cURLDescription(maskingCredentials: false)
        #expect(unmasked.contains("Bearer token-123") && unmasked.contains("user:secret@"))

        var get = HTTPRequest(url: URL(string: "http://example.com/")!)
        #expect(get.cURLDescription() == "curl \\\n\t'http://example.com/'")
        get.body = .file(path: "/tmp/upload.bin")
        #expect(get.cURLDescription().contains("--data-binary @'/tmp/upload.bin'"))
        get.body = .bytes(Data([0xFF, 0xFE]))
        #expect(get.cURLDescription().hasSuffix("\n# body: 2 bytes not shown"))
    }

    @Test("every quote is escaped, one followed by a combining mark too: the shell reads back exactly the text")
    func cURLQuotingAgainstAShell() async throws {
        // A quote followed by a combining mark is one Character ("'\u{301}"), which a Character-wise
        // replacement does not see: the quote then closed the shell string, and what followed ran.
        let payload = "x'\u{301}; echo INJECTED; '\u{301}"
        var request = HTTPRequest(url: URL(string: "https://example.com/")!, method: .post)
        try request.headers.set(name: "X-Note", value: payload)
        request.body = .bytes(Data(payload.utf8))
        let description = request.cURLDescription()
        let header = try #require(description.components(separatedBy: " \\\n\t").first { $0.hasPrefix("-H ") })
        let body = try #require(description.components(separatedBy: " \\\n\t").first { $0.hasPrefix("--data-binary ") })
        for (quoted, expected) in [(String(header.dropFirst(3)), "X-Note: \(payload)"), (String(body.dropFirst(14)), payload)] {
            let shell = try await ChildProcess.run(executable: "/bin/sh", arguments: ["-c", "printf '%s' \(quoted)"])
            #expect(shell.status == 0)
            #expect(shell.output == expected, "\(quoted)")
        }
    }

    @Test("info logs the request line, status and timings; bodies only at trace", .tags(.server), .needsServers)
    func logging() async throws {
        let (infoLogger, info) = CapturingLogHandler.logger(level: .info)
        let manager = try Support.manager(logger: infoLogger)
        _ = try await manager.get("get", parameters: ["q": "logged"])
        let record = try #require(info.all.first { $0.level == .info })
        #expect(record.message.hasPrefix("200 GET http://127.0.0.1:"))
        #expect(record.message.contains("/get?q=logged"))
        for key in ["status", "duration_ms", "ttfb_ms", "connect_ms", "bytes_received", "http_version", "attempt"] {
            #expect(record.metadata[key] != nil, "missing \(key)")
        }
        #expect(!info.all.contains { $0.metadata["body"] != nil })
        _ = try? await manager.get("status/500")
        #expect(info.all.contains { $0.level == .error && $0.metadata["status"] == "500" })

        let (traceLogger, trace) = CapturingLogHandler.logger(level: .trace)
        let traced = try Support.manager(logger: traceLogger)
        let serializer = try #require(traced.requestSerializer as? HTTPRequestSerializer)
        serializer.setAuthorizationHeader(username: "user", password: "hunter2")
        _ = try await traced.get("get")
        #expect(trace.all.contains { $0.level == .debug && $0.message.hasPrefix("GET ") })
        let body = try #require(trace.all.first { $0.metadata["body"] != nil })
        #expect("\(body.metadata["body"]!)".contains("\"url\""))
        let curl = try #require(trace.all.first { $0.metadata["curl"] != nil })
        #expect("\(curl.metadata["curl"]!)".contains("Authorization: ***"))
        // What Sluice logs of the request never shows the credential (httpbin's echo in the body does).
        let requestRecords = trace.all.filter { $0.metadata["body"] == nil }
        #expect(!requestRecords.contains { "\($0.message) \($0.metadata)".contains("dXNlcjpodW50ZXIy") })
    }
}
