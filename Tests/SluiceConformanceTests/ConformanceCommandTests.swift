import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

/// The `sluice-conformance` executable as a CI pipeline sees it: exit statuses, stderr, progress lines.
@Suite("sluice-conformance command")
struct ConformanceCommandTests {
    /// What one run of the executable left.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the built executable in `directory` with no `SLUICE_*` variables, so no servers are known.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sluice-conformance")
        guard FileManager.default.fileExists(atPath: executable.path) else {
            throw ConformanceError("sluice-conformance is not at \(executable.path); build it with swift build --build-tests")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-command-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // An empty value removes the variable from the child's environment.
        let unset = ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("SLUICE_") }.map { ($0, "") }
        let outcome = try await ChildProcess.run(
            executable: executable.path, arguments: arguments, environment: Dictionary(uniqueKeysWithValues: unset),
            in: directory ?? scratch)
        return Run(status: outcome.status, stdout: outcome.output, stderr: outcome.errors)
    }

    static var output: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-command-report-\(UUID())").path
    }

    @Test("the tool could not run: status 2 and one line of reason on stderr")
    func unusable() async throws {
        let cases: [([String], String)] = [
            (["--no-such-option"], "--no-such-option"),
            (["--suite", "no.such-suite"], "unknown suite(s): no.such-suite"),
            (["--vectors", "/nonexistent/vectors", "--suite", "core.headers"], "/nonexistent/vectors does not exist"),
            (["--servers", "/nonexistent/servers.json", "--suite", "core.headers"], "cannot read the servers file"),
            (["--no-servers", "--suite", "environment.servers"], "no suite left to run"),
            (["--suite", "core.headers", "--output", "/dev/null/reports"], "cannot write the report"),
            (["--suite", "core.headers", "--plugin-samples", "Tests/Vectors/plugins/ndjson-samples.json"],
             "1 --plugin-samples files for 0 --plugin libraries"),
            (["--suite", "plugins.loadable", "--plugin", "/x.so", "--plugin-samples", "/nonexistent/samples.json"],
             "cannot read the samples in /nonexistent/samples.json"),
        ]
        for (arguments, reason) in cases {
            let run = try await Self.run(arguments, in: TestEnvironment.repositoryRoot)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(run.stderr)")
            #expect(lines.first?.hasPrefix("sluice-conformance: ") == true)
            #expect(run.stderr.contains(reason), "\(arguments): \(run.stderr)")
        }
    }

    @Test("--extra-vectors: a user's own directory of vector files runs beside the bundled cases")
    func extraVectors() async throws {
        let bundled = try await Self.run(["--suite", "request.query-string", "--output", Self.output])
        let bundledCount = try #require(Self.passCount(bundled.stdout, suite: "request.query-string"))
        let mine = FileManager.default.temporaryDirectory.appendingPathComponent("my-vectors-\(UUID())")
        try FileManager.default.createDirectory(at: mine.appendingPathComponent("request"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mine) }
        try Data(#"""
            {"escape": [{"id": "mine: a space", "input": "a b", "output": "a%20b"}],
             "serialize": [{"id": "mine: two keys", "parameters": {"b": 2, "a": 1}, "query": "a=1&b=2"}]}
            """#.utf8).write(to: mine.appendingPathComponent("request/query-string.json"))
        let run = try await Self.run(["--suite", "request.query-string", "--extra-vectors", mine.path, "--output", Self.output])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(Self.passCount(run.stdout, suite: "request.query-string") == bundledCount + 2, "\(run.stdout)")

        // A case of the user's that fails is reported under its own id.
        try Data(#"{"escape": [{"id": "mine: wrong on purpose", "input": "a b", "output": "a+b"}]}"#.utf8)
            .write(to: mine.appendingPathComponent("request/query-string.json"))
        let failing = try await Self.run(["--suite", "request.query-string", "--extra-vectors", mine.path, "--output", Self.output])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("mine: wrong on purpose"), "\(failing.stdout)")

        // A file no bundled file is named like is refused, not ignored.
        try Data("{}".utf8).write(to: mine.appendingPathComponent("request/query-strings.json"))
        let typo = try await Self.run(["--suite", "request.query-string", "--extra-vectors", mine.path, "--output", Self.output])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("query-strings.json has no bundled counterpart"), "\(typo.stderr)")
    }

    /// The number of passed cases in a suite's progress line (`[1/1] NAME ... pass 37/37`).
    static func passCount(_ output: String, suite: String) -> Int? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("] \(suite) ... ") }),
            let counts = line.split(separator: " ").last, let passed = counts.split(separator: "/").first
        else { return nil }
        return Int(passed)
    }

    @Test("suites that need no server pass anywhere, with the vectors found from the executable: status 0")
    func runsAnywhere() async throws {
        let run = try await Self.run(["--suite", "core.headers", "request.query-string", "--output", Self.output])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("[1/2] core.headers ... pass "))
        #expect(run.stdout.contains("[2/2] request.query-string ... pass "))
        #expect(run.stderr.isEmpty)
    }

    @Test("server suites without servers are not run, name the start command, and make the status 1")
    func serversAbsent() async throws {
        let run = try await Self.run(["--suite", "core.headers", "environment.servers", "--output", Self.output])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("[2/2] environment.servers ... not run"))
        #expect(run.stdout.contains("make servers"))
        #expect(run.stdout.contains("Tools/testenv/start.sh"))
        #expect(run.stdout.contains("1 suite not run"))
        let offline = try await Self.run(["--no-servers", "--quiet", "--output", Self.output])
        #expect(offline.status == 0, "\(offline.stdout)")
        #expect(!offline.stdout.contains("["), "--quiet prints no progress line for a passing suite")
        #expect(offline.stdout.contains(" passed, 0 failed\n"))
    }
}
