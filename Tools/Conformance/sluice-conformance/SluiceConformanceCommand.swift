import ArgumentParser
import Foundation
import SluiceConformance

/// `sluice-conformance`: runs the conformance suites, shows their progress, and writes the report.
@main
struct SluiceConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice-conformance",
        abstract: "Check that Sluice and its plugins meet their contracts, and write a report.",
        discussion: """
            Suites read the vectors under Tests/Vectors and reach the servers started by Tools/testenv \
            (their URLs come from SLUICE_* variables or .testenv/run/servers.json). Suites that need no \
            server run anywhere; server suites whose servers are absent are reported as not run. \
            Exit status: 0 when every selected suite ran and passed; 1 when a case failed, a suite could \
            not run, or a server suite was not run; 2 when the tool could not run (bad option, missing \
            vectors, unreadable --servers file, unknown --format, unwritable output directory).
            """)

    @Option(name: .long, help: "Directory for the report files.")
    var output: String = "reports/conformance"

    @Option(name: .long, help: "Report formats: json, markdown, junit, html; repeat or separate with commas (default: json,markdown).")
    var format: [String] = []

    @Option(name: .long, help: "The Tests/Vectors directory (default: found above the current directory or the executable).")
    var vectors: String?

    @Option(name: .customLong("extra-vectors"), help: "A directory of your own vector files, named as the bundled ones (request/query-string.json, ...), whose cases run beside the bundled cases; repeat for several.")
    var extraVectors: [String] = []

    @Option(name: .long, help: "A servers.json written by Tools/testenv/start.sh (default: SLUICE_* variables, or found above the current directory).")
    var servers: String?

    @Option(name: .long, help: "A plugin library (.so) to load and check; repeat for several.")
    var plugin: [String] = []

    @Option(name: .customLong("plugin-samples"), help: "A JSON file of samples for the --plugin in the same position (docs/plugins.md); repeat for several.")
    var pluginSamples: [String] = []

    @Option(name: .long, parsing: .upToNextOption, help: "Run only these suites (default: all).")
    var suite: [String] = []

    @Flag(name: .customLong("no-servers"), help: "Leave out the suites that need the test servers.")
    var noServers = false

    @Flag(name: .long, help: "Print only failures and the summary, not a line per suite.")
    var quiet = false

    @Flag(name: .long, help: "List the suites and exit.")
    var list = false

    /// Parses the arguments and runs, exiting with a ``ConformanceExitStatus``: a parse error is status 2
    /// with its reason on one line of stderr, not ArgumentParser's usage status.
    static func main() async {
        // Everything the run made (the command, the report) is released before exit, so that
        // LeakSanitizer's exit-time check finds nothing held only by main's frame.
        Foundation.exit(await status())
    }

    /// Parses the arguments and runs; the exit status.
    private static func status() async -> Int32 {
        let command: SluiceConformanceCommand
        do {
            command = try parse()
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                return 0
            }
            return Self.unusable(message(for: error)).rawValue
        }
        return await command.execute().rawValue
    }

    func run() async throws {
        let status = await execute()
        if status != .passed { throw ExitCode(status.rawValue) }
    }

    /// Runs the selected suites and writes the report; returns the exit status.
    private func execute() async -> ConformanceExitStatus {
        if list {
            for suite in ConformanceRunner.allSuites {
                let needs = suite.requirements.contains(.servers) ? " (needs servers)" : ""
                print("\(suite.name)\t\(suite.summary)\(needs)")
            }
            return .passed
        }
        let formats: [ConformanceReportFormat]
        do {
            formats = format.isEmpty ? ConformanceReportFormat.defaults : try ConformanceReportFormat.parse(format)
        } catch {
            return Self.unusable("\(error)")
        }
        let unknown = Set(suite).subtracting(ConformanceRunner.allSuites.map(\.name))
        guard unknown.isEmpty else {
            return Self.unusable("unknown suite(s): \(unknown.sorted().joined(separator: ", ")); see --list")
        }
        var selected = suite.isEmpty
            ? ConformanceRunner.allSuites
            : ConformanceRunner.allSuites.filter { suite.contains($0.name) }
        if noServers { selected.removeAll { $0.requirements.contains(.servers) } }
        guard !selected.isEmpty else { return Self.unusable("no suite left to run (every one chosen needs servers)") }

        var vectorStore: VectorStore?
        do {
            vectorStore = try VectorStore.locate(explicit: vectors)
        } catch {
            if vectors != nil || !extraVectors.isEmpty || selected.contains(where: { $0.requirements.contains(.vectors) }) {
                return Self.unusable("\(error)")
            }
            vectorStore = nil
        }
        do {
            vectorStore = try vectorStore?.adding(extraVectors.map { URL(fileURLWithPath: $0) })
        } catch {
            return Self.unusable("\(error)")
        }
        let serverEnvironment: ServerEnvironment?
        if let servers {
            do {
                serverEnvironment = try ServerEnvironment.load(file: servers)
            } catch {
                return Self.unusable("\(error)")
            }
        } else {
            serverEnvironment = try? ServerEnvironment.load()
        }

        guard pluginSamples.count <= plugin.count else {
            return Self.unusable("\(pluginSamples.count) --plugin-samples files for \(plugin.count) --plugin libraries: each samples file goes with the --plugin in the same position")
        }
        for file in pluginSamples {
            do {
                _ = try PluginContract(contentsOf: URL(fileURLWithPath: file))
            } catch {
                return Self.unusable(error.message)
            }
        }
        let context = ConformanceContext(vectors: vectorStore, servers: serverEnvironment, pluginPaths: plugin, pluginSamplePaths: pluginSamples)
        let quiet = quiet
        let report = await ConformanceRunner.run(selected, in: context) { event in
            Self.show(event, quiet: quiet)
        }
        let files: [URL]
        do {
            files = try report.write(to: URL(fileURLWithPath: output), formats: formats)
        } catch {
            return Self.unusable("\(error)")
        }
        print(report.summaryLine)
        if report.notRunCount > 0 {
            print("not run: \(report.suites.filter(\.notRun).map(\.name).joined(separator: ", ")) — start the servers with \(ServerEnvironment.startCommand), or leave them out with --no-servers")
        }
        for (index, file) in files.enumerated() { print("\(index == 0 ? "report:" : "       ") \(file.path)") }
        return ConformanceExitStatus(report)
    }

    /// Prints progress: a line per suite as it runs (or, with `quiet`, only a suite that did not pass),
    /// with the reasons under it.
    private static func show(_ event: ConformanceProgress, quiet: Bool) {
        switch event {
        case let .started(name, position, total):
            guard !quiet else { return }
            print(ConformanceReport.Suite.progressPrefix(name: name, position: position, of: total), terminator: "")
            fflush(nil)
        case let .finished(suite, position, total):
            if quiet {
                guard !suite.passed else { return }
                print(suite.progressLine(position: position, of: total))
            } else {
                print(suite.progressResult)
            }
            for line in suite.problemLines { print(line) }
            fflush(nil)
        }
    }

    /// Writes `sluice-conformance: reason` on one line of stderr; returns ``ConformanceExitStatus/unusable``.
    private static func unusable(_ reason: String) -> ConformanceExitStatus {
        let line = reason.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        FileHandle.standardError.write(Data("sluice-conformance: \(line)\n".utf8))
        return .unusable
    }
}
