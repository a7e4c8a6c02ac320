import Foundation
import Testing

/// Runs one of the package's own executables (built beside the test bundle) to its end.
public enum ChildProcess {
    /// What a finished child left: its exit status and what it wrote.
    public struct Outcome: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
    }

    /// Runs the package executable `name` with `arguments`, the test's environment passed on with
    /// `environment`'s variables set (an empty value removes a variable).
    ///
    /// - Throws: A failed `#require` when the executable was not built; what `Process` throws.
    public static func run(_ name: String, arguments: [String] = [], environment: [String: String] = [:]) throws -> Outcome {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "\(name) is not built: swift build --build-tests")
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        if !environment.isEmpty {
            var variables = ProcessInfo.processInfo.environment
            for (name, value) in environment { variables[name] = value.isEmpty ? nil : value }
            process.environment = variables
        }
        // Files, not pipes: nothing to drain while the child runs.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-child-\(UUID())")
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
        return Outcome(
            status: process.terminationStatus, output: try TextFile.read(outputURL),
            errors: try TextFile.read(errorsURL))
    }
}
