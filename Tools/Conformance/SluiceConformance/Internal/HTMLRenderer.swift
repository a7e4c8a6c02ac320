import Foundation

/// Writes a ``ConformanceReport`` as one self-contained HTML page: inline CSS, no script, nothing fetched,
/// so it can be attached to a CI run and opened anywhere.
enum HTMLRenderer {
    static func render(_ report: ConformanceReport) -> String {
        let e = MarkupText.escaped
        let verdict = report.passed ? "PASS" : "FAIL"
        var html = [
            "<!DOCTYPE html>",
            #"<html lang="en">"#,
            "<head>",
            #"<meta charset="utf-8">"#,
            #"<meta name="viewport" content="width=device-width, initial-scale=1">"#,
            "<title>Sluice conformance: \(verdict)</title>",
            "<style>\(style)</style>",
            "</head>",
            "<body>",
            "<h1>Sluice conformance report</h1>",
            #"<p class="verdict \#(report.passed ? "pass" : "fail")"><strong>\#(verdict)</strong> \#(e(report.summaryLine))</p>"#,
            "<h2>Environment</h2>",
            #"<table class="environment">"#,
        ]
        for (name, value) in JUnitRenderer.environment(report) {
            html.append("<tr><th>\(e(name))</th><td>\(e(value))</td></tr>")
        }
        html += [
            "</table>",
            "<h2>Suites</h2>",
            #"<table class="suites">"#,
            "<tr><th>suite</th><th>result</th><th>passed</th><th>failed</th><th>seconds</th><th>checks</th></tr>",
        ]
        for suite in report.suites {
            let outcome = outcomeClass(suite)
            html.append(
                "<tr class=\"\(outcome)\"><td><a href=\"#suite-\(e(suite.name))\">\(e(suite.name))</a></td>"
                    + #"<td class="result">\#(e(suite.progressResult))</td><td>\#(suite.passedCount)</td>"#
                    + "<td>\(suite.failedCount)</td><td>\(String(format: "%.3f", suite.seconds))</td>"
                    + "<td>\(e(suite.summary))</td></tr>")
        }
        html.append("</table>")

        let notRun = report.suites.filter(\.notRun)
        if !notRun.isEmpty {
            html.append("<h2>Not run</h2>")
            html.append("<ul class=\"not-run\">")
            for suite in notRun {
                html.append("<li><code>\(e(suite.name))</code>: \(e(suite.error ?? "not run"))</li>")
            }
            html.append("</ul>")
        }
        let failures = report.failedSuites
        if !failures.isEmpty {
            html.append("<h2>Failures</h2>")
            for suite in failures {
                if let error = suite.error {
                    html.append(#"<div class="failure"><h3><code>\#(e(suite.name))</code> could not run</h3>"#)
                    html.append("<pre>\(e(error))</pre></div>")
                }
                for result in suite.cases where !result.passed {
                    html.append(failureBlock(suite: suite.name, result: result))
                }
            }
        }
        html.append("<h2>Cases</h2>")
        for suite in report.suites {
            let open = suite.passed ? "" : " open"
            html.append(#"<details id="suite-\#(e(suite.name))" class="\#(outcomeClass(suite))"\#(open)>"#)
            html.append(
                "<summary><code>\(e(suite.name))</code> — \(e(suite.progressResult))</summary>")
            html.append("<ul>")
            if let error = suite.error {
                html.append(#"<li class="fail">\#(suite.notRun ? "not run" : "could not run"): \#(e(error))</li>"#)
            }
            for result in suite.cases {
                let detail = result.detail.map { ": \(e($0))" } ?? ""
                html.append(
                    #"<li class="\#(result.passed ? "pass" : "fail")">\#(result.passed ? "pass" : "FAIL") "#
                        + "<code>\(e(result.id))</code>\(detail)</li>")
            }
            html += ["</ul>", "</details>"]
        }
        html += ["</body>", "</html>"]
        return html.joined(separator: "\n") + "\n"
    }

    /// One failing case: its reason, then expected beside actual when the case kept them.
    private static func failureBlock(suite: String, result: CaseResult) -> String {
        let e = MarkupText.escaped
        var block = [
            #"<div class="failure">"#,
            "<h3><code>\(e(suite))</code> / <code>\(e(result.id))</code></h3>",
            #"<p class="reason">\#(e(result.detail ?? "failed"))</p>"#,
        ]
        if result.expected != nil || result.actual != nil {
            block += [
                #"<div class="comparison">"#,
                #"<div><h4>expected</h4><pre class="expected">\#(e(result.expected ?? ""))</pre></div>"#,
                #"<div><h4>actual</h4><pre class="actual">\#(e(result.actual ?? ""))</pre></div>"#,
                "</div>",
            ]
        }
        block.append("</div>")
        return block.joined(separator: "\n")
    }

    private static func outcomeClass(_ suite: ConformanceReport.Suite) -> String {
        switch suite.outcome {
        case .passed: "pass"
        case .failed: "fail"
        case .notRun: "not-run"
        }
    }

    private static let style = """
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;\
        padding:0 1rem;color:#1f2328;background:#fff}
        h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
        h3{font-size:1rem;margin:.2rem 0}h4{margin:.2rem 0;font-size:.85rem;color:#57606a}
        table{border-collapse:collapse;width:100%}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;\
        text-align:left;vertical-align:top}th{background:#f6f8fa}
        .environment th{width:8rem}
        .verdict{font-size:1.1rem;padding:.6rem 1rem;border-radius:6px}
        .verdict.pass{background:#dafbe1;border:1px solid #2da44e}
        .verdict.fail{background:#ffebe9;border:1px solid #cf222e}
        tr.pass .result{color:#1a7f37}tr.fail .result{color:#cf222e;font-weight:600}
        tr.not-run .result{color:#9a6700;font-weight:600}
        .failure{border:1px solid #cf222e;border-left-width:4px;border-radius:6px;padding:.5rem 1rem;margin:.8rem 0}
        .comparison{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
        pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:0}
        pre.expected{border-left:3px solid #2da44e}pre.actual{border-left:3px solid #cf222e}
        ul.not-run li{color:#9a6700}
        details{margin:.3rem 0}summary{cursor:pointer}
        li.fail{color:#cf222e}li.pass{color:#1f2328}
        code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
        """
}
