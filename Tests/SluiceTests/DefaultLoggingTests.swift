import Foundation
import SluiceTestSupport
import Testing

@Suite("Logging is silent by default", .tags(.server), .needsServers)
struct DefaultLoggingTests {
    /// Runs `sluice-logging-probe` against httpbin and returns its exit status, stdout and stderr.
    static func probe(_ mode: String) async throws -> (status: Int32, output: String, errors: String) {
        let outcome = try await ChildProcess.run("sluice-logging-probe", arguments: [try Support.httpbin().absoluteString, mode])
        return (outcome.status, outcome.output, outcome.errors)
    }

    @Test("with no set-up, successes, a 404 and a retried 500 write nothing to stderr")
    func silentByDefault() async throws {
        let run = try await Self.probe("default")
        #expect(run.status == 0)
        #expect(run.output.contains("get: 200") && run.output.contains("status/500:"), "\(run.output)")
        #expect(run.errors.isEmpty, "stderr: \(run.errors)")
    }

    @Test("passing a swift-log Logger turns the lines on (the probe would see them)")
    func onWhenAsked() async throws {
        let run = try await Self.probe("logger")
        #expect(run.status == 0)
        #expect(run.errors.contains("sluice.http"), "stderr: \(run.errors)")
        #expect(run.errors.contains("error") && run.errors.contains("warning"), "stderr: \(run.errors)")
    }
}
