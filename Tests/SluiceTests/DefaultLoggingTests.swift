import Foundation
import SluiceTestSupport
import Testing

@Suite("Logging is silent by default")
struct DefaultLoggingTests {
    /// Runs `sluice-logging-probe` against httpbin and returns its exit status, stdout and stderr.
    static func probe(_ mode: String) throws -> (status: Int32, output: String, errors: String) {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("sluice-logging-probe")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build it with swift build --build-tests")
        let process = Process()
        process.executableURL = tool
        process.arguments = [try Support.httpbin().absoluteString, mode]
        // Files, not pipes: nothing to drain while the child runs.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-logging-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout")
        let errorsURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorsURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOf: outputURL, encoding: .utf8),
            try String(contentsOf: errorsURL, encoding: .utf8)
        )
    }

    @Test("with no set-up, successes, a 404 and a retried 500 write nothing to stderr")
    func silentByDefault() throws {
        let run = try Self.probe("default")
        #expect(run.status == 0)
        #expect(run.output.contains("get: 200") && run.output.contains("status/500:"), "\(run.output)")
        #expect(run.errors.isEmpty, "stderr: \(run.errors)")
    }

    @Test("passing a swift-log Logger turns the lines on (the probe would see them)")
    func onWhenAsked() throws {
        let run = try Self.probe("logger")
        #expect(run.status == 0)
        #expect(run.errors.contains("sluice.http"), "stderr: \(run.errors)")
        #expect(run.errors.contains("error") && run.errors.contains("warning"), "stderr: \(run.errors)")
    }
}
