import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The JUnit XML and HTML reports, read back the way CI systems and people read them.
@Suite("sluice-conformance report formats")
struct ConformanceFormatTests {
    /// A report with a passing suite, a failing one (hostile text in its detail), one that could not run and
    /// one not run.
    static let report = ConformanceReport(
        sluiceVersion: "1.2.3", libcurl: "8.5.0 (OpenSSL/3.0.15, HTTP/2 yes)", startedAt: "2025-01-01T00:00:00Z",
        serverSource: nil, vectorsDirectory: "/repo/Tests/Vectors",
        suites: [
            .init(name: "core.headers", summary: "header names", error: nil,
                  cases: [CaseResult(id: "plain", passed: true), CaseResult(id: "folded", passed: true)], seconds: 0.25),
            .init(name: "request.query-string", summary: "query <strings> & pairs", error: nil,
                  cases: [
                      CaseResult(id: "ok", passed: true),
                      CaseResult.expect("nested \"dictionary\" <a>", "a[b]=1&c=\u{0}", equals: "a%5Bb%5D=1"),
                      CaseResult(id: "thrown", passed: false, detail: "line one\nline two ]]> end"),
                  ], seconds: 0.5),
            .init(name: "multipart.layout", summary: "bytes", error: "cannot load vectors multipart/layout.json",
                  cases: [], seconds: 0),
            .init(name: "environment.servers", summary: "servers", error: "the test servers are not configured; start them with make servers",
                  cases: [], seconds: 0, notRun: true),
        ])

    /// Counts what an XML parser sees in a JUnit file.
    final class JUnitReader: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var root: [String: String] = [:]
        var suites: [String: [String: String]] = [:]
        var failureMessages: [String] = []
        var failureTexts: [String] = []
        var skippedMessages: [String] = []
        var caseNames: [String] = []
        private var text: String?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements[name, default: 0] += 1
            switch name {
            case "testsuites": root = attributes
            case "testsuite": suites[attributes["name"] ?? ""] = attributes
            case "testcase": caseNames.append(attributes["name"] ?? "")
            case "failure":
                failureMessages.append(attributes["message"] ?? "")
                text = ""
            case "skipped": skippedMessages.append(attributes["message"] ?? "")
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "failure", let text {
                failureTexts.append(text)
                self.text = nil
            }
        }
    }

    @Test("JUnit XML parses back with the right counts, messages and expected-vs-actual text")
    func junit() throws {
        let xml = Self.report.junitXML
        let parser = XMLParser(data: Data(xml.utf8))
        let reader = JUnitReader()
        parser.delegate = reader
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")\n\(xml)")
        #expect(reader.elements["testsuites"] == 1)
        #expect(reader.elements["testsuite"] == 4)
        #expect(reader.elements["testcase"] == 7)
        #expect(reader.elements["failure"] == 2)
        #expect(reader.elements["error"] == 1)
        #expect(reader.elements["skipped"] == 1)
        #expect(reader.root["tests"] == "7")
        #expect(reader.root["failures"] == "2")
        #expect(reader.root["errors"] == "1")
        #expect(reader.root["skipped"] == "1")
        let query = try #require(reader.suites["request.query-string"])
        #expect(query["tests"] == "3")
        #expect(query["failures"] == "2")
        #expect(reader.caseNames.contains("nested \"dictionary\" <a>"))
        #expect(reader.failureMessages.contains("line one"))
        let comparison = try #require(reader.failureTexts.first)
        #expect(comparison.contains("expected: a%5Bb%5D=1"))
        #expect(comparison.contains("actual:   a[b]=1&c=\\u{0}"))
        #expect(reader.failureTexts.last?.contains("line two ]]> end") == true)
        #expect(reader.skippedMessages.first?.contains("make servers") == true)
    }

    @Test("an attribute keeps its line breaks and tabs, one followed by a combining mark too")
    func attributeBreaks() throws {
        // "\n\u{301}" is one Character: a Character-wise replacement left that line feed raw, and XML
        // parsers normalise a raw line feed in an attribute to a space.
        let message = "one\n\u{301}two\r\nthree\tfour\r\u{301}"
        let report = ConformanceReport(
            sluiceVersion: "1.2.3", libcurl: "8.5.0", startedAt: "2025-01-01T00:00:00Z", serverSource: nil,
            vectorsDirectory: "/v",
            suites: [.init(name: "environment.servers", summary: "servers", error: message, cases: [], seconds: 0, notRun: true)])
        let parser = XMLParser(data: Data(report.junitXML.utf8))
        let reader = JUnitReader()
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.skippedMessages == [message])
    }

    @Test("the HTML page is self-contained and shows each failure with expected beside actual")
    func html() {
        let html = Self.report.html
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<style>"))
        for external in ["<script", "<link", "src=", "href=\"http", "url(", "@import"] {
            #expect(!html.contains(external), "\(external)")
        }
        #expect(html.contains("<strong>FAIL</strong>"))
        #expect(html.contains("<code>request.query-string</code> / <code>nested &quot;dictionary&quot; &lt;a&gt;</code>"))
        #expect(html.contains(#"<pre class="expected">a%5Bb%5D=1</pre>"#))
        #expect(html.contains(#"<pre class="actual">a[b]=1&amp;c=\u{0}</pre>"#))
        #expect(html.contains("line one\nline two ]]&gt; end"))
        #expect(html.contains("cannot load vectors multipart/layout.json"))
        #expect(html.contains("<h2>Not run</h2>"))
        #expect(html.contains("OpenSSL/3.0.15"))
        #expect(html.contains("/repo/Tests/Vectors"))
        #expect(!html.contains("\u{0}"))
    }

    @Test("formats parse from repeated and comma-separated values; unknown ones are refused")
    func formats() throws {
        #expect(try ConformanceReportFormat.parse(["json,junit", "html", "md", "json"]) == [.json, .junit, .html, .markdown])
        #expect(throws: ConformanceError.self) { try ConformanceReportFormat.parse(["json,yaml"]) }
        #expect(throws: ConformanceError.self) { try ConformanceReportFormat.parse([","]) }
    }

    @Test("writes each asked format under its file name")
    func writesFormats() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-formats-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try Self.report.write(to: directory, formats: [.junit, .html])
        #expect(files.map(\.lastPathComponent) == ["report.junit.xml", "report.html"])
        #expect(try String(contentsOf: files[0], encoding: .utf8) == Self.report.junitXML)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("report.json").path))
    }

    @Test("the command writes the formats asked for and refuses an unknown one with status 2")
    func command() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-formats-\(UUID())")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await ConformanceCommandTests.run(
            ["--suite", "core.headers", "--format", "junit,html", "--format", "json", "--output", output.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for name in ["report.junit.xml", "report.html", "report.json"] {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(name).path), "\(name)")
            #expect(run.stdout.contains(name))
        }
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("report.md").path))
        let bad = try await ConformanceCommandTests.run(["--suite", "core.headers", "--format", "yaml", "--output", output.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown report format yaml"))
    }
}
