import Foundation

/// A file format ``ConformanceReport/write(to:formats:)`` can write.
public enum ConformanceReportFormat: String, Sendable, CaseIterable, Codable {
    /// `report.json`: the report value, for scripts (``ConformanceReport`` decodes it).
    case json
    /// `report.md`: the summary table, failures, and every case, for people and pull requests.
    case markdown
    /// `report.junit.xml`: JUnit XML (`testsuites`/`testsuite`/`testcase`/`failure`) that GitHub Actions,
    /// GitLab and Jenkins show as test results.
    case junit
    /// `report.html`: one self-contained page (inline CSS, nothing fetched) with the summary, the suites,
    /// each failing case with expected beside actual, and the environment.
    case html

    /// What `write(to:)` writes when no format is asked for: JSON and Markdown.
    public static let defaults: [ConformanceReportFormat] = [.json, .markdown]

    /// The file name in the output directory: `report.json`, `report.md`, `report.junit.xml`, `report.html`.
    public var fileName: String {
        switch self {
        case .json: "report.json"
        case .markdown: "report.md"
        case .junit: "report.junit.xml"
        case .html: "report.html"
        }
    }

    /// The formats named in `values`, each a name or a comma-separated list (`json,junit`), in the order
    /// given, without repeats. `md` is accepted for `markdown`, `xml` for `junit`.
    ///
    /// - Throws: ``ConformanceError`` naming an unknown format and the known ones, or when `values` names
    ///   none.
    public static func parse(_ values: [String]) throws(ConformanceError) -> [ConformanceReportFormat] {
        var formats: [ConformanceReportFormat] = []
        for value in values {
            for name in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
            where !name.isEmpty {
                let aliases = ["md": ConformanceReportFormat.markdown, "xml": .junit]
                guard let format = ConformanceReportFormat(rawValue: name) ?? aliases[name] else {
                    throw ConformanceError(
                        "unknown report format \(name); the formats are \(allCases.map(\.rawValue).joined(separator: ", "))")
                }
                if !formats.contains(format) { formats.append(format) }
            }
        }
        guard !formats.isEmpty else { throw ConformanceError("no report format given") }
        return formats
    }
}
