import Foundation

/// The outcome of one `sluice-conformance` run: every suite and case, with the environment it ran in.
public struct ConformanceReport: Sendable, Codable {
    /// One suite's outcome.
    public struct Suite: Sendable, Codable {
        /// How a suite ended.
        public enum Outcome: String, Sendable, Codable {
            /// It ran and every case passed.
            case passed = "pass"
            /// It ran and a case failed, or it could not run (missing vectors, an error of its own).
            case failed = "fail"
            /// It was not run because what it needs from outside the tool (the servers) is absent.
            case notRun = "not run"
        }

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
        /// Whether it was left out because the servers it needs are absent; ``error`` then says why, with
        /// the command that starts them. Default `false`.
        public let notRun: Bool

        /// A suite's outcome.
        ///
        /// - Parameters:
        ///   - notRun: Whether it was left out because what it needs is absent (``error`` says why).
        ///     Default `false`.
        public init(
            name: String, summary: String, error: String?, cases: [CaseResult], seconds: Double, notRun: Bool = false
        ) {
            self.name = name
            self.summary = summary
            self.error = error
            self.cases = cases
            self.seconds = seconds
            self.notRun = notRun
        }

        /// Cases that passed.
        public var passedCount: Int { cases.filter(\.passed).count }
        /// Cases that failed, plus one when the suite could not run (not counted for a suite not run).
        public var failedCount: Int { notRun ? 0 : cases.count - passedCount + (error == nil ? 0 : 1) }
        /// Whether it ran and every case passed.
        public var passed: Bool { error == nil && !notRun && cases.allSatisfy(\.passed) }
        /// How it ended.
        public var outcome: Outcome { notRun ? .notRun : (passed ? .passed : .failed) }

        /// The progress line for this suite, the `position`th of `total`:
        /// `[3/16] request.query-string ... pass 37/37`.
        public func progressLine(position: Int, of total: Int) -> String {
            "\(Self.progressPrefix(name: name, position: position, of: total))\(progressResult)"
        }

        /// What a progress line shows before the suite's result: `[3/16] request.query-string ... `.
        public static func progressPrefix(name: String, position: Int, of total: Int) -> String {
            "[\(position)/\(total)] \(name) ... "
        }

        /// What a progress line shows after the suite ran: `pass 37/37`, `FAIL 35/37`, `could not run`,
        /// `not run`.
        public var progressResult: String {
            switch outcome {
            case .notRun: "not run"
            case .failed where error != nil: "could not run"
            case .failed: "FAIL \(passedCount)/\(cases.count)"
            case .passed: "pass \(passedCount)/\(cases.count)"
            }
        }

        /// The lines under a suite's console line: why it could not run (or was not run), then each failing
        /// case with its reason. Empty for a suite that passed.
        public var problemLines: [String] {
            var lines: [String] = []
            if let error { lines.append("      \(notRun ? "not run" : "could not run"): \(error)") }
            for result in cases where !result.passed {
                lines.append("      ✗ \(result.id): \(result.detail ?? "failed")")
            }
            return lines
        }

        private enum CodingKeys: String, CodingKey {
            case name, summary, error, cases, seconds, notRun, outcome
        }

        /// Decodes a suite; a report written before ``notRun`` existed decodes with it `false`.
        ///
        /// - Throws: `DecodingError` when a field is missing or of the wrong type.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            summary = try container.decode(String.self, forKey: .summary)
            error = try container.decodeIfPresent(String.self, forKey: .error)
            cases = try container.decode([CaseResult].self, forKey: .cases)
            seconds = try container.decode(Double.self, forKey: .seconds)
            notRun = try container.decodeIfPresent(Bool.self, forKey: .notRun) ?? false
        }

        /// Encodes the suite with its ``outcome`` spelled out (`pass`, `fail`, `not run`).
        ///
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(summary, forKey: .summary)
            try container.encodeIfPresent(error, forKey: .error)
            try container.encode(cases, forKey: .cases)
            try container.encode(seconds, forKey: .seconds)
            try container.encode(notRun, forKey: .notRun)
            try container.encode(outcome, forKey: .outcome)
        }
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
    /// Every case that failed, plus one for each suite that could not run (suites not run are counted
    /// in ``notRunCount``).
    public var failedCount: Int { suites.reduce(0) { $0 + $1.failedCount } }
    /// Suites not run because the servers they need are absent.
    public var notRunCount: Int { suites.filter(\.notRun).count }
    /// Whether everything ran and passed: a suite not run makes the report not pass.
    public var passed: Bool { suites.allSatisfy(\.passed) }
    /// The totals in one line: `480 passed, 2 failed`, with `, 3 suites not run` when some were not.
    public var summaryLine: String {
        let notRun = notRunCount
        return "\(passedCount) passed, \(failedCount) failed"
            + (notRun == 0 ? "" : ", \(notRun) suite\(notRun == 1 ? "" : "s") not run")
    }
    /// The suites that failed or could not run.
    public var failedSuites: [Suite] { suites.filter { $0.outcome == .failed } }

    /// The report as Markdown: a summary table, then each failure with its detail.
    public var markdown: String {
        var lines = [
            "# Sluice conformance report", "",
            "- Sluice \(sluiceVersion), libcurl \(libcurl)",
            "- started \(startedAt)",
            "- servers: \(serverDescription)",
            "- vectors: \(vectorsDirectory ?? "none")",
            "- result: **\(passed ? "PASS" : "FAIL")**, \(summaryLine)", "",
            "| suite | result | passed | failed | seconds | checks |",
            "|---|---|---|---|---|---|",
        ]
        for suite in suites {
            let result = switch suite.outcome {
            case .passed: "pass"
            case .failed: "FAIL"
            case .notRun: "not run"
            }
            lines.append(
                "| \(suite.name) | \(result) | \(suite.passedCount) | \(suite.failedCount) | "
                    + String(format: "%.3f", suite.seconds) + " | \(suite.summary) |")
        }
        let notRun = suites.filter(\.notRun)
        if !notRun.isEmpty {
            lines += ["", "## Not run", ""]
            for suite in notRun { lines.append("- `\(suite.name)`: \(suite.error ?? "not run")") }
        }
        let failures = failedSuites
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
            if let error = suite.error { lines.append("- \(suite.notRun ? "not run" : "could not run"): \(error)") }
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

    /// The report for a console in one piece: a line per suite, under it each failing case with its reason
    /// (or why the suite could not run or was not run), then the totals.
    public var consoleLines: [String] {
        var lines: [String] = []
        for suite in suites {
            let mark = switch suite.outcome {
            case .passed: "pass"
            case .failed: "FAIL"
            case .notRun: "SKIP"
            }
            lines.append("\(mark)  \(suite.name): \(suite.passedCount)/\(suite.cases.count)")
            lines += suite.problemLines
        }
        lines.append(summaryLine)
        return lines
    }

    /// The report as JUnit XML (see ``ConformanceReportFormat/junit``): a `testsuite` per suite, a `testcase`
    /// per case, a `failure` with the reason as message and expected, actual and detail as text; a suite that
    /// could not run is an `error`, a suite not run is `skipped`. Text is XML-escaped, and characters XML
    /// cannot carry are written as `\u{…}`.
    public var junitXML: String { JUnitRenderer.render(self) }

    /// The report as one self-contained HTML page (see ``ConformanceReportFormat/html``).
    public var html: String { HTMLRenderer.render(self) }

    /// The report in `format`, as the file ``write(to:formats:)`` writes.
    ///
    /// - Throws: ``ConformanceError`` when the report cannot be encoded as JSON.
    public func rendered(as format: ConformanceReportFormat) throws(ConformanceError) -> Data {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                return try encoder.encode(self)
            } catch {
                throw ConformanceError("cannot encode the report as JSON: \(error)")
            }
        case .markdown: return Data(markdown.utf8)
        case .junit: return Data(junitXML.utf8)
        case .html: return Data(html.utf8)
        }
    }

    /// Writes `report.json` and `report.md` into `directory`, creating it when needed, each written
    /// to a temporary name first and then renamed, so a reader never sees half a report.
    ///
    /// - Returns: The two files' URLs.
    /// - Throws: ``ConformanceError`` when the directory cannot be made or written.
    @discardableResult
    public func write(to directory: URL) throws -> (json: URL, markdown: URL) {
        let files = try write(to: directory, formats: ConformanceReportFormat.defaults)
        return (files[0], files[1])
    }

    /// Writes the report in each of `formats` into `directory` (file names from
    /// ``ConformanceReportFormat/fileName``), creating it when needed, each written to a temporary name
    /// first and then renamed, so a reader never sees half a report.
    ///
    /// - Parameters:
    ///   - formats: What to write, in order. Default ``ConformanceReportFormat/defaults`` (JSON and Markdown).
    /// - Returns: The files' URLs, in the order of `formats`.
    /// - Throws: ``ConformanceError`` when the directory cannot be made or written.
    @discardableResult
    public func write(
        to directory: URL, formats: [ConformanceReportFormat] = ConformanceReportFormat.defaults
    ) throws -> [URL] {
        var files: [URL] = []
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for format in formats {
                let file = directory.appendingPathComponent(format.fileName)
                try rendered(as: format).write(to: file, options: .atomic)
                files.append(file)
            }
        } catch {
            throw ConformanceError("cannot write the report into \(directory.path): \(error)")
        }
        return files
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
