import ArgumentParser
import Foundation
import SluiceConformance

/// `sluice-conformance`: runs the conformance suites and writes a JSON and a Markdown report.
@main
struct SluiceConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice-conformance",
        abstract: "Check that Sluice and its plugins meet their contracts, and write a report.",
        discussion: """
            Suites read the vectors under Tests/Vectors and reach the servers started by Tools/testenv \
            (their URLs come from SLUICE_* variables or .testenv/run/servers.json). \
            Exit status: 0 when every case passes, 1 when any fails.
            """)

    @Option(name: .long, help: "Directory for report.json and report.md.")
    var output: String = "reports/conformance"

    @Option(name: .long, help: "The Tests/Vectors directory (default: found above the current directory).")
    var vectors: String?

    @Option(name: .long, help: "A servers.json written by Tools/testenv/start.sh (default: SLUICE_* variables, or found above the current directory).")
    var servers: String?

    @Option(name: .long, help: "A plugin library (.so) to load and check; repeat for several.")
    var plugin: [String] = []

    @Option(name: .long, parsing: .upToNextOption, help: "Run only these suites (default: all).")
    var suite: [String] = []

    @Flag(name: .long, help: "List the suites and exit.")
    var list = false

    func run() async throws {
        if list {
            for suite in ConformanceRunner.allSuites { print("\(suite.name)\t\(suite.summary)") }
            return
        }
        let selected = suite.isEmpty
            ? ConformanceRunner.allSuites
            : ConformanceRunner.allSuites.filter { suite.contains($0.name) }
        let unknown = Set(suite).subtracting(ConformanceRunner.allSuites.map(\.name))
        guard unknown.isEmpty else {
            throw ValidationError("unknown suite(s): \(unknown.sorted().joined(separator: ", ")); see --list")
        }
        let context = ConformanceContext(
            vectors: try? VectorStore.locate(explicit: vectors),
            servers: try? ServerEnvironment.load(file: servers), pluginPaths: plugin)
        if let vectors, context.vectors == nil { throw ValidationError("no vectors at \(vectors)") }
        let report = await ConformanceRunner.run(selected, in: context)
        let files = try report.write(to: URL(fileURLWithPath: output))
        for line in report.consoleLines { print(line) }
        print("report: \(files.markdown.path)")
        print("        \(files.json.path)")
        if !report.passed { throw ExitCode(1) }
    }
}
