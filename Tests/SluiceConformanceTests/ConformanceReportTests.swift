import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

@Suite("sluice-conformance")
struct ConformanceReportTests {
    @Test("every vector suite passes over Tests/Vectors")
    func vectorSuites() async {
        let suites = ConformanceRunner.allSuites.filter {
            !["environment.servers", "transport.session", "transport.connections", "security.policy", "plugins.loadable"].contains($0.name)
        }
        let report = await ConformanceRunner.run(suites, in: ConformanceContext(vectors: TestEnvironment.vectors, servers: nil))
        #expect(report.suites.count == suites.count)
        for suite in report.suites {
            #expect(suite.error == nil, "\(suite.name): \(suite.error ?? "")")
            #expect(!suite.cases.isEmpty, "\(suite.name) ran no case")
            for result in suite.cases where !result.passed {
                Issue.record("\(suite.name) / \(result.id): \(result.detail ?? "")")
            }
        }
        #expect(report.passed)
    }

    @Test("the example plugin library passes the plugins.loadable checks on its samples")
    func pluginSuite() async throws {
        let path = try TestEnvironment.examplePluginPath()
        let samples = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Vectors/plugins/ndjson-samples.json").path
        let report = await ConformanceRunner.run(
            ConformanceRunner.allSuites.filter { $0.name == "plugins.loadable" },
            in: ConformanceContext(vectors: nil, servers: nil, pluginPaths: [path], pluginSamplePaths: [samples]))
        let suite = try #require(report.suites.first)
        #expect(suite.cases.count >= 20)
        #expect(suite.cases.contains { $0.id == "libSluiceNDJSONPlugin.so: sample \"a broken line\" fails with registry.pluginFailed" })
        for result in suite.cases where !result.passed { Issue.record("\(result.id): \(result.detail ?? "")") }
    }

    @Test("a plugin library given without samples fails plugins.loadable: nothing shows it decodes")
    func pluginSuiteWithoutSamples() async throws {
        let path = try TestEnvironment.examplePluginPath()
        let report = await ConformanceRunner.run(
            ConformanceRunner.allSuites.filter { $0.name == "plugins.loadable" },
            in: ConformanceContext(vectors: nil, servers: nil, pluginPaths: [path]))
        let suite = try #require(report.suites.first)
        #expect(suite.cases.filter { !$0.passed }.map(\.id) == [
            "libSluiceNDJSONPlugin.so: application/x-ndjson has a sample that decodes",
            "libSluiceNDJSONPlugin.so: application/jsonl has a sample that decodes",
        ])
        #expect(!report.passed)
    }

    @Test("the bundled plugins pass plugins.bundled through the registry")
    func bundledPlugins() async throws {
        let report = await ConformanceRunner.run(
            ConformanceRunner.allSuites.filter { $0.name == "plugins.bundled" }, in: ConformanceContext(vectors: nil, servers: nil))
        let suite = try #require(report.suites.first)
        #expect(suite.cases.count >= 35)
        #expect(suite.cases.contains { $0.id == "xml: XXE file:///etc/passwd is refused" && $0.passed })
        for result in suite.cases where !result.passed { Issue.record("\(result.id): \(result.detail ?? "")") }
    }

    @Test("a suite that cannot run is a failure in the report, not a crash")
    func missingInputs() async {
        let report = await ConformanceRunner.run(in: ConformanceContext(vectors: nil, servers: nil))
        #expect(!report.passed)
        #expect(report.suites.allSatisfy {
            ["core.content-codings", "plugins.loadable", "plugins.bundled", "security.hostile", "environment.system"].contains($0.name) || $0.error != nil
        })
        #expect(report.suites.contains { $0.name == "transport.session" && $0.error != nil })
        #expect(report.markdown.contains("could not run"))
    }

    @Test("writes report.json and report.md that read back")
    func writesReport() async throws {
        let report = await ConformanceRunner.run(
            ConformanceRunner.allSuites.filter { $0.name == "core.headers" },
            in: ConformanceContext(vectors: TestEnvironment.vectors, servers: nil))
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-report-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try report.write(to: directory)
        let decoded = try JSONDecoder().decode(ConformanceReport.self, from: Data(contentsOf: files.json))
        #expect(decoded.suites.first?.name == "core.headers")
        #expect(decoded.passedCount == report.passedCount)
        let markdown = try String(contentsOf: files.markdown, encoding: .utf8)
        #expect(markdown.contains("| core.headers | pass |"))
    }

    @Test("a passing report names every case; the console shows each failing case with its reason")
    func readableOutput() {
        let report = ConformanceReport(
            sluiceVersion: "0", libcurl: "8", startedAt: "now", serverSource: "environment", vectorsDirectory: "v",
            suites: [
                .init(name: "a.passing", summary: "s", error: nil,
                      cases: [CaseResult(id: "first case", passed: true), CaseResult(id: "second case", passed: true)], seconds: 0),
                .init(name: "b.failing", summary: "s", error: nil,
                      cases: [CaseResult(id: "broken case", passed: false, detail: "expected 1, got 2")], seconds: 0),
                .init(name: "c.absent", summary: "s", error: "the test servers are not configured", cases: [], seconds: 0),
            ])
        let markdown = report.markdown
        #expect(markdown.contains("- pass `first case`"))
        #expect(markdown.contains("- pass `second case`"))
        #expect(markdown.contains("- **FAIL** `broken case`: expected 1, got 2"))
        #expect(markdown.contains("- servers: the SLUICE_* environment variables"))
        let console = report.consoleLines
        #expect(console.contains("FAIL  b.failing: 0/1"))
        #expect(console.contains("      ✗ broken case: expected 1, got 2"))
        #expect(console.contains("      could not run: the test servers are not configured"))
        #expect(console.last == "2 passed, 2 failed")
        #expect(!console.contains { $0.contains("first case") }, "passing cases stay off the console")
    }

    @Test("an unwritable report directory is a clear error")
    func unwritable() async {
        let report = await ConformanceRunner.run([], in: ConformanceContext(vectors: nil, servers: nil))
        #expect(throws: ConformanceError.self) { try report.write(to: URL(fileURLWithPath: "/dev/null/reports")) }
    }
}
