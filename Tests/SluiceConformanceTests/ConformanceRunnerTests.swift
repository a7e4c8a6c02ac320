import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

/// Progress events and what the runner does when the servers are absent.
@Suite("sluice-conformance runner")
struct ConformanceRunnerTests {
    /// Collects progress events from the runner.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        func record(_ event: ConformanceProgress) {
            lock.withLock {
                switch event {
                case let .started(name, position, total):
                    lines.append("started \(position)/\(total) \(name)")
                case let .finished(suite, position, total):
                    lines.append(suite.progressLine(position: position, of: total))
                }
            }
        }

        var recorded: [String] { lock.withLock { lines } }
    }

    static let serverSuites = ConformanceRunner.allSuites.filter { $0.requirements.contains(.servers) }

    @Test("exactly the server suites need servers; the vector suites need vectors")
    func requirements() {
        #expect(Set(Self.serverSuites.map(\.name)) == ["environment.servers", "transport.session", "transport.connections", "security.policy"])
        let vectorSuites = ConformanceRunner.allSuites.filter { $0.requirements.contains(.vectors) }.map(\.name)
        #expect(vectorSuites.contains("request.query-string"))
        #expect(!vectorSuites.contains("plugins.bundled"))
    }

    @Test("without servers, server suites are not run, say how to start them, and the report does not pass")
    func notConfigured() async {
        let report = await ConformanceRunner.run(Self.serverSuites, in: ConformanceContext(vectors: nil, servers: nil))
        #expect(report.suites.allSatisfy { $0.outcome == .notRun && $0.cases.isEmpty })
        #expect(report.suites.allSatisfy { $0.error?.contains("make servers (or Tools/testenv/start.sh)") == true })
        #expect(!report.passed)
        #expect(ConformanceExitStatus(report) == .failed)
        #expect(report.notRunCount == 4)
        #expect(report.failedCount == 0)
        #expect(report.summaryLine == "0 passed, 0 failed, 4 suites not run")
        #expect(report.markdown.contains("## Not run"))
        #expect(report.markdown.contains("| environment.servers | not run |"))
    }

    @Test("servers configured but not answering are not run either, naming the address")
    func unreachable() async {
        let servers = ServerEnvironment(
            values: ["SLUICE_HTTP_URL": "http://127.0.0.1:1", "SLUICE_HTTPBIN_URL": "http://127.0.0.1:1"],
            source: "/tmp/stale/servers.json")
        let report = await ConformanceRunner.run(
            Self.serverSuites.prefix(1).map { $0 }, in: ConformanceContext(vectors: nil, servers: servers))
        let suite = report.suites[0]
        #expect(suite.notRun)
        #expect(suite.error?.contains("does not answer at http://127.0.0.1:1") == true, "\(suite.error ?? "")")
        #expect(suite.error?.contains("/tmp/stale/servers.json") == true)
    }

    @Test("suites that need no server pass without servers: exit status 0")
    func offline() async {
        let suites = ConformanceRunner.allSuites.filter { ["core.headers", "plugins.bundled"].contains($0.name) }
        let report = await ConformanceRunner.run(suites, in: ConformanceContext(vectors: TestEnvironment.vectors, servers: nil))
        #expect(ConformanceExitStatus(report) == .passed)
        #expect(report.summaryLine.hasSuffix(" passed, 0 failed"))
    }

    @Test("environment.system checks libcurl's features, the CA store, netlink and the MIME table without servers")
    func systemEnvironment() async throws {
        let report = await ConformanceRunner.run(
            ConformanceRunner.allSuites.filter { $0.name == "environment.system" }, in: ConformanceContext(vectors: nil, servers: nil))
        let suite = try #require(report.suites.first)
        #expect(suite.error == nil)
        let ids = Set(suite.cases.map(\.id))
        for id in ["libcurl 7.68 or later", "HTTP/2", "TLS backend", "asynchronous DNS", "Unix domain sockets",
                   "system CA store readable", "netlink route socket", "system MIME table"] {
            #expect(ids.contains(id), "\(id)")
        }
        for result in suite.cases where !result.passed {
            #expect(result.detail?.contains("install") == true || result.detail?.contains("allow") == true || result.detail?.contains("upgrade") == true,
                    "\(result.id): a failure says how to fix it")
            Issue.record("this machine: \(result.id): \(result.detail ?? "")")
        }
    }

    @Test("progress: an event before and after each suite, with a running count")
    func progress() async {
        let events = Events()
        let suites = ConformanceRunner.allSuites.filter {
            ["core.headers", "request.query-string", "environment.servers"].contains($0.name)
        }
        _ = await ConformanceRunner.run(suites, in: ConformanceContext(vectors: TestEnvironment.vectors, servers: nil)) {
            events.record($0)
        }
        let lines = events.recorded
        #expect(lines.count == 6)
        #expect(lines[0] == "started 1/3 core.headers")
        #expect(lines[1].hasPrefix("[1/3] core.headers ... pass "))
        #expect(lines[3] == "[2/3] request.query-string ... pass 37/37")
        #expect(lines[5] == "[3/3] environment.servers ... not run")
    }

    @Test("progress results: pass, FAIL with counts, could not run")
    func progressResults() {
        let failing = ConformanceReport.Suite(
            name: "b.failing", summary: "s", error: nil,
            cases: [CaseResult(id: "one", passed: true), CaseResult(id: "two", passed: false, detail: "expected 1, got 2")],
            seconds: 0)
        #expect(failing.progressLine(position: 2, of: 16) == "[2/16] b.failing ... FAIL 1/2")
        #expect(failing.problemLines == ["      ✗ two: expected 1, got 2"])
        let broken = ConformanceReport.Suite(name: "c", summary: "s", error: "no vectors", cases: [], seconds: 0)
        #expect(broken.progressResult == "could not run")
        #expect(broken.problemLines == ["      could not run: no vectors"])
    }

    @Test("a report written before suites could be not run still decodes")
    func decodesOlderReport() throws {
        let json = #"{"name":"a","summary":"s","cases":[{"id":"x","passed":true}],"seconds":0.5}"#
        let suite = try JSONDecoder().decode(ConformanceReport.Suite.self, from: Data(json.utf8))
        #expect(!suite.notRun)
        #expect(suite.outcome == .passed)
    }
}
