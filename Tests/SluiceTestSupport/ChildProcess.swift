import Foundation
import Testing

/// Runs a child process to its end without holding a thread while it runs.
///
/// Swift Testing runs the suite's tests on the cooperative pool, which has one thread per core: two on CI's
/// machine. A test that blocks one of them in `waitUntilExit()` or `readDataToEndOfFile()` while a child runs
/// for seconds stalls every other test's continuations, and their timeouts fire on a machine that is merely
/// busy. Here the child's output goes to files and its end is awaited through its termination handler.
public enum ChildProcess {
    /// What a finished child left: its exit status and what it wrote.
    public struct Outcome: Sendable {
        /// The exit status (or the signal's number when it was killed).
        public let status: Int32
        /// What it wrote to standard output.
        public let output: String
        /// What it wrote to standard error.
        public let errors: String
    }

    /// The most a child may run before the test fails: 10 minutes (the longest, a soak-style storm, takes
    /// well under one on a busy machine).
    public static let defaultDeadline: Duration = .seconds(600)

    /// Runs the package executable `name` (built beside the test bundle) with `arguments`, the test's
    /// environment passed on with `environment`'s variables set (an empty value removes a variable).
    ///
    /// - Throws: A failed `#require` when the executable was not built; what `Process` throws;
    ///   ``WaitTimeout`` when it runs past `deadline` (it is then killed).
    public static func run(
        _ name: String, arguments: [String] = [], environment: [String: String] = [:],
        deadline: Duration = defaultDeadline
    ) async throws -> Outcome {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "\(name) is not built: swift build --build-tests")
        return try await run(executable: tool.path, arguments: arguments, environment: environment, deadline: deadline)
    }

    /// Runs the program at `executable` (an absolute path, or a name looked up on `PATH` through
    /// `/usr/bin/env`) with `arguments`, standard input read from `input` (none by default), in `directory`
    /// (the test's own by default).
    ///
    /// - Throws: What `Process` throws; ``WaitTimeout`` when it runs past `deadline` (it is then killed).
    public static func run(
        executable: String, arguments: [String] = [], environment: [String: String] = [:], input: Data? = nil,
        in directory: URL? = nil, deadline: Duration = defaultDeadline
    ) async throws -> Outcome {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            var variables = ProcessInfo.processInfo.environment
            for (name, value) in environment { variables[name] = value.isEmpty ? nil : value }
            process.environment = variables
        }
        // Files, not pipes: nothing to drain while the child runs.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-child-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("stdout")
        let errorsURL = folder.appendingPathComponent("stderr")
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
        if let input {
            let inputURL = folder.appendingPathComponent("stdin")
            try input.write(to: inputURL)
            process.standardInput = try FileHandle(forReadingFrom: inputURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        let exited = TestSignal<Int32>()
        process.terminationHandler = { exited.send($0.terminationStatus) }
        try process.run()
        let status: Int32
        do {
            status = try await exited.value("\(executable) \(arguments.joined(separator: " ")) to exit", deadline: deadline)
        } catch {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw error
        }
        return Outcome(status: status, output: try TextFile.read(outputURL), errors: try TextFile.read(errorsURL))
    }
}
