import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceXML
import Testing

/// One `RESULT` line of `sluice-xml-leakcheck quiet`: the API, the outcome (`parsed` or an error code)
/// and the diagnostic's message.
struct QuietProbeResult: Sendable {
    let api: String
    let outcome: String
    let message: String

    init?(_ line: Substring) {
        guard line.hasPrefix("RESULT ") else { return nil }
        let fields = line.dropFirst("RESULT ".count).split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        (api, outcome, message) = (String(fields[0]), String(fields[1]), String(fields[2]))
    }
}

/// libxml2 prints some errors itself (its encoding layer's, `xmlParseChunk`'s, a few of XPath's) unless
/// the thread's handlers catch them. These run the parses in a child process, `sluice-xml-leakcheck
/// quiet`, whose standard error is a file of its own, so nothing here depends on the test runner's
/// output.
@Suite("libxml2 prints nothing")
struct XMLQuietTests {
    /// A document declaring UTF-7 with a byte no UTF-7 converter accepts.
    static let hostile = Data(#"<?xml version="1.0" encoding="UTF-7"?><a>"#.utf8) + Data([0xFF]) + Data("</a>".utf8)

    /// Runs the probe; its standard output and standard error.
    static func probe() async throws -> (output: String, errors: String) {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sluice-xml-leakcheck")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build it with swift build --build-tests")
        let probe = try await ChildProcess.run(executable: tool.path, arguments: ["quiet"])
        #expect(probe.status == 0)
        return (probe.output, probe.errors)
    }

    @Test("every parse API, on one thread and on eight at once: nothing on stderr, libxml2's message in the error")
    func quiet() async throws {
        let (output, errors) = try await Self.probe()
        #expect(errors.isEmpty, "stderr:\n\(errors.prefix(2000))")
        let results = output.split(separator: "\n").compactMap(QuietProbeResult.init)
        let apis = Set(results.map(\.api))
        func describe(_ results: [QuietProbeResult]) -> String {
            "\(results.count): " + results.prefix(5).map { "\($0.api) → \($0.outcome) \($0.message)" }.joined(separator: "; ")
        }

        // The document with the bad byte inside the root, and after it, alone and on eight threads at
        // once (each also parsing a good document in turn): every API refuses it, with libxml2's message.
        let hostile = results.filter { result in
            ["hostile.", "afterRoot.", "threads.hostile."].contains { result.api.hasPrefix($0) }
        }
        let expectedHostile: Int = 16 + 16 + 8 * 10 * 10
        #expect(hostile.count == expectedHostile)
        let notRefused = hostile.filter { $0.outcome != "xml.malformed" || !$0.message.contains("input conversion failed") }
        #expect(notRefused.isEmpty, "\(describe(notRefused))")
        for api in [
            "XMLTree", "XMLTree.parse1", "XMLTree.parse65536", "XMLEventParser.parse", "XMLEventParser.feed1",
            "XMLEventParser.feed65536", "XMLEventParser.parseChunks1", "XMLBorrowedEventParser.parse",
            "XMLBorrowedEventParser.feed7", "XMLBorrowedEventParser.parseChunks65536", "XMLResponseSerializer",
        ] {
            #expect(apis.contains("hostile.\(api)") && apis.contains("afterRoot.\(api)"), "\(api) not run")
        }
        let good = results.filter { $0.api.hasPrefix("good.") || $0.api.hasPrefix("threads.good.") }
        #expect(good.count == 18 + 8 * 10 * 10)
        let notParsed = good.filter { $0.outcome != "parsed" }
        #expect(notParsed.isEmpty, "\(describe(notParsed))")

        // XPath errors libxml2 prints through its generic channel come back in the error.
        let xpath = results.filter { $0.api.hasPrefix("xpath ") }
        #expect(xpath.count == 6)
        #expect(xpath.allSatisfy { $0.outcome == "xml.xpathInvalid" }, "\(describe(xpath))")
        #expect(xpath.first { $0.api == "xpath nosuchfunction()" }?.message.contains("function nosuchfunction not found") == true)

        // A structured handler the program set on its thread is neither called nor replaced by a parse.
        #expect(output.contains("OWN HANDLER calls-during=0 calls-after=1"), "\(output.split(separator: "\n").last ?? "")")
    }

    @Test("the encoding failure is the parse's diagnostic: libxml2's I18N code, its message, a position")
    func diagnostic() throws {
        let parses: [() throws(SluiceError) -> Void] = [
            { () throws(SluiceError) in _ = try XMLTree(parsing: Self.hostile) },
            { () throws(SluiceError) in try XMLEventParser.parse(Self.hostile) { _ in } },
            { () throws(SluiceError) in
                let parser = try XMLEventParser { _ in }
                try parser.feed(Self.hostile)
                try parser.finish()
            },
        ]
        for parse in parses {
            let error = #expect(throws: SluiceError.self) { try parse() }
            #expect(error?.code == .xmlMalformed)
            #expect(error?.xmlDiagnostic?.code == 6003)  // XML_I18N_CONV_FAILED
            #expect(error?.xmlDiagnostic?.message.hasPrefix("input conversion failed") == true)
            #expect(error?.xmlDiagnostic?.line == 1)
            #expect(error?.library?.library == "libxml2")
        }
    }
}
