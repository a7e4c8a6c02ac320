import Foundation

/// The outcome of one `sluice-conformance` run: every suite and case, with the environment it ran in.
public struct ConformanceReport: Sendable, Codable {
    /// One suite's outcome.
    public struct Suite: Sendable, Codable {
        /// The suite's name.
        public let name: String
        /// What it checks.
        public let summary: String
        /// Why the suite could not run, or `nil` when it ran.
        public let error: String?
        /// Its cases.
        public let cases: [CaseResult]
        /// Seconds it took.
        public let seconds: Double

        /// A suite's outcome.
        public init(name: String, summary: String, error: String?, cases: [CaseResult], seconds: Double) {
            self.name = name
            self.summary = summary
            self.error = error
            self.cases = cases
            self.seconds = seconds
        }

        /// Cases that passed.
        public var passedCount: Int { cases.filter(\.passed).count }
        /// Whether it ran and every case passed.
        public var passed: Bool { error == nil && cases.allSatisfy(\.passed) }
    }

    /// Sluice's version.
    public let sluiceVersion: String
    /// libcurl's version and features.
    public let libcurl: String
    /// When the run started (ISO 8601).
    public let startedAt: String
    /// Where the servers came from, or `nil`.
    public let serverSource: String?
    /// Where the vectors came from, or `nil`.
    public let vectorsDirectory: String?
    /// The suites in the order they ran.
    public let suites: [Suite]

    /// Every case that passed.
    public var passedCount: Int { suites.reduce(0) { $0 + $1.passedCount } }
    /// Every case that failed, plus one for each suite that could not run.
    public var failedCount: Int {
        suites.reduce(0) { $0 + $1.cases.count - $1.passedCount + ($1.error == nil ? 0 : 1) }
    }
    /// Whether everything passed.
    public var passed: Bool { suites.allSatisfy(\.passed) }

    /// The report as Markdown: a summary table, then each failure with its detail.
    public var markdown: String {
        var lines = [
            "# Sluice conformance report", "",
            "- Sluice \(sluiceVersion), libcurl \(libcurl)",
            "- started \(startedAt)",
            "- servers: \(serverDescription)",
            "- vectors: \(vectorsDirectory ?? "none")",
            "- result: **\(passed ? "PASS" : "FAIL")**, \(passedCount) passed, \(failedCount) failed", "",
            "| suite | result | passed | failed | seconds | checks |",
            "|---|---|---|---|---|---|",
        ]
        for suite in suites {
            let failed = suite.cases.count - suite.passedCount + (suite.error == nil ? 0 : 1)
            lines.append(
                "| \(suite.name) | \(suite.passed ? "pass" : "FAIL") | \(suite.passedCount) | \(failed) | "
                    + String(format: "%.3f", suite.seconds) + " | \(suite.summary) |")
        }
        let failures = suites.filter { !$0.passed }
        if !failures.isEmpty {
            lines += ["", "## Failures", ""]
            for suite in failures {
                if let error = suite.error { lines.append("- `\(suite.name)`: could not run: \(error)") }
                for result in suite.cases where !result.passed {
                    lines.append("- `\(suite.name)` / `\(result.id)`: \(result.detail ?? "failed")")
                }
            }
        }
        lines += ["", "## Cases", ""]
        for suite in suites {
            lines.append("### \(suite.name)")
            lines.append("")
            if let error = suite.error { lines.append("- could not run: \(error)") }
            for result in suite.cases {
                let detail = result.detail.map { ": \($0)" } ?? ""
                lines.append("- \(result.passed ? "pass" : "**FAIL**") `\(result.id)`\(detail)")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where the servers came from, in words: the `SLUICE_*` environment variables, a `servers.json`, or
    /// none (server suites then could not run).
    public var serverDescription: String {
        switch serverSource {
        case nil: "none configured (start them with \(ServerEnvironment.startCommand))"
        case "environment"?: "the SLUICE_* environment variables"
        case let file?: file
        }
    }

    /// What the console shows: a line per suite, under it each failing case with its reason (or why the
    /// suite could not run), then the totals.
    public var consoleLines: [String] {
        var lines: [String] = []
        for suite in suites {
            let mark = suite.passed ? "pass" : "FAIL"
            lines.append("\(mark)  \(suite.name): \(suite.passedCount)/\(suite.cases.count)")
            if let error = suite.error { lines.append("      could not run: \(error)") }
            for result in suite.cases where !result.passed {
                lines.append("      ✗ \(result.id): \(result.detail ?? "failed")")
            }
        }
        lines.append("\(passedCount) passed, \(failedCount) failed")
        return lines
    }

    /// Writes `report.json` and `report.md` into `directory`, creating it when needed, each written
    /// to a temporary name first and then renamed, so a reader never sees half a report.
    ///
    /// - Returns: The two files' URLs.
    /// - Throws: ``ConformanceError`` when the directory cannot be made or written.
    @discardableResult
    public func write(to directory: URL) throws -> (json: URL, markdown: URL) {
        let json = directory.appendingPathComponent("report.json")
        let markdown = directory.appendingPathComponent("report.md")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(self).write(to: json, options: .atomic)
            try Data(self.markdown.utf8).write(to: markdown, options: .atomic)
        } catch {
            throw ConformanceError("cannot write the report into \(directory.path): \(error)")
        }
        return (json, markdown)
    }

    /// Creates a report.
    public init(
        sluiceVersion: String, libcurl: String, startedAt: String, serverSource: String?, vectorsDirectory: String?,
        suites: [Suite]
    ) {
        self.sluiceVersion = sluiceVersion
        self.libcurl = libcurl
        self.startedAt = startedAt
        self.serverSource = serverSource
        self.vectorsDirectory = vectorsDirectory
        self.suites = suites
    }
}
