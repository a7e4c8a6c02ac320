import Foundation

/// Writes a ``ConformanceReport`` as JUnit XML, the shape GitHub Actions test reporters, GitLab's
/// `artifacts:reports:junit` and Jenkins' JUnit plugin read.
///
/// Each suite is a `testsuite`, each case a `testcase` whose `classname` is the suite. A failing case has a
/// `failure` with the reason as its `message` and expected, actual and detail as its text. A suite that could
/// not run has one `testcase` with an `error`; a suite not run (servers absent) one with `skipped` — the
/// tool's exit status, not the XML, makes that run fail.
enum JUnitRenderer {
    static func render(_ report: ConformanceReport) -> String {
        let e = MarkupText.escaped
        let a = MarkupText.attribute
        let tests = report.suites.reduce(0) { $0 + Self.testCount($1) }
        let failures = report.suites.reduce(0) { $0 + $1.cases.count - $1.passedCount }
        let errors = report.suites.filter { $0.error != nil && !$0.notRun }.count
        let skipped = report.notRunCount
        let time = report.suites.reduce(0) { $0 + $1.seconds }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="sluice-conformance" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" "#
                + #"skipped="\#(skipped)" time="\#(seconds(time))" timestamp="\#(a(report.startedAt))">"#,
        ]
        for suite in report.suites {
            let suiteErrors = suite.error != nil && !suite.notRun ? 1 : 0
            lines.append(
                #"  <testsuite name="\#(a(suite.name))" tests="\#(testCount(suite))" "#
                    + #"failures="\#(suite.cases.count - suite.passedCount)" errors="\#(suiteErrors)" "#
                    + #"skipped="\#(suite.notRun ? 1 : 0)" time="\#(seconds(suite.seconds))" timestamp="\#(a(report.startedAt))">"#)
            lines.append("    <properties>")
            for (name, value) in environment(report) + [("summary", suite.summary)] {
                lines.append(#"      <property name="\#(a(name))" value="\#(a(value))"/>"#)
            }
            lines.append("    </properties>")
            let classname = a(suite.name)
            if let error = suite.error {
                let id = suite.notRun ? "(not run)" : "(could not run)"
                lines.append(#"    <testcase name="\#(id)" classname="\#(classname)" time="0">"#)
                if suite.notRun {
                    lines.append(#"      <skipped message="\#(a(error))"/>"#)
                } else {
                    lines.append(#"      <error message="\#(a(firstLine(error)))" type="couldNotRun">\#(e(error))</error>"#)
                }
                lines.append("    </testcase>")
            }
            for result in suite.cases {
                let name = a(result.id)
                if result.passed {
                    lines.append(#"    <testcase name="\#(name)" classname="\#(classname)" time="0"/>"#)
                    continue
                }
                lines.append(#"    <testcase name="\#(name)" classname="\#(classname)" time="0">"#)
                let message = firstLine(result.detail ?? "failed")
                lines.append(
                    #"      <failure message="\#(a(message))" type="mismatch">\#(e(failureText(result)))</failure>"#)
                lines.append("    </testcase>")
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A failure's text: expected and actual on lines of their own when the case kept them, then the detail.
    static func failureText(_ result: CaseResult) -> String {
        var lines: [String] = []
        if let expected = result.expected { lines.append("expected: \(expected)") }
        if let actual = result.actual { lines.append("actual:   \(actual)") }
        lines.append(result.detail ?? "failed")
        return lines.joined(separator: "\n")
    }

    /// The environment as name-value pairs, for `properties` and the HTML page.
    static func environment(_ report: ConformanceReport) -> [(String, String)] {
        [
            ("sluice", report.sluiceVersion), ("libcurl", report.libcurl), ("started", report.startedAt),
            ("servers", report.serverDescription), ("vectors", report.vectorsDirectory ?? "none"),
        ]
    }

    private static func testCount(_ suite: ConformanceReport.Suite) -> Int {
        suite.cases.count + (suite.error == nil ? 0 : 1)
    }

    private static func firstLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        return line.count > 500 ? String(line.prefix(500)) + "…" : line
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }
}
