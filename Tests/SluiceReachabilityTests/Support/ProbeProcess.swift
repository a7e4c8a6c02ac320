import Foundation
import SluiceCore
import SluiceTestSupport

/// `sluice-reachability-probe` running inside a network namespace, and the lines it printed.
///
/// Started with `ip netns exec`; ``nextStatus(_:)`` waits for the next status line of one label.
/// ``stop()`` closes its standard input (it then stops its managers and exits) and kills it if it does
/// not exit within 5 seconds.
final class ProbeProcess: @unchecked Sendable {
    /// One status line: `LABEL STATUS MONOTONIC_NS`.
    struct StatusLine: CustomStringConvertible {
        let label: String
        let status: String
        let nanoseconds: UInt64
        var description: String { "\(label) \(status)" }
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let received = Locked<(lines: [String], partial: String)>(([], ""))
    /// Set when the probe's standard output has ended: every line it printed is in `received`.
    private let outputEnded = Locked(false)
    private let errorText = Locked("")
    private var consumed = 0

    /// The probe executable: `$SLUICE_REACHABILITY_PROBE`, else `sluice-reachability-probe` next to the
    /// test executable (SwiftPM builds both into the same directory).
    ///
    /// - Throws: ``NamespaceError`` naming the paths tried and the command that builds the probe.
    static func executablePath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["SLUICE_REACHABILITY_PROBE"] {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw NamespaceError("SLUICE_REACHABILITY_PROBE=\(path) is not an executable file")
            }
            return path
        }
        let testExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var candidates = [testExecutable.deletingLastPathComponent().appendingPathComponent("sluice-reachability-probe").path]
        if let bundle = Bundle.main.executableURL {
            candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("sluice-reachability-probe").path)
        }
        if let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return path }
        throw NamespaceError(
            "sluice-reachability-probe is missing (looked at \(candidates.joined(separator: ", "))); "
                + "`swift build --build-tests` builds it next to the tests, or set SLUICE_REACHABILITY_PROBE")
    }

    /// Starts the probe in `namespace` watching `targets` (`LABEL=default`, `LABEL=host:NAME`,
    /// `LABEL=address:IP`) and waits for its `started` line.
    init(in namespace: NetworkNamespace, targets: [String]) throws {
        guard let ip = NetworkNamespace.ipPath else { throw NamespaceError("iproute2's `ip` is not installed") }
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = ["netns", "exec", namespace.name, try Self.executablePath()] + targets
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let received = self.received
        let outputEnded = self.outputEnded
        Self.drain(output.fileHandleForReading, name: "probe-stdout") { data in
            received.withLock { received in
                received.partial += String(decoding: data, as: UTF8.self)
                while let newline = received.partial.firstIndex(of: "\n") {
                    received.lines.append(String(received.partial[..<newline]))
                    received.partial.removeSubrange(...newline)
                }
            }
        } ended: {
            outputEnded.withLock { $0 = true }
        }
        let errorText = self.errorText
        Self.drain(errors.fileHandleForReading, name: "probe-stderr") { data in
            errorText.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    deinit { stop() }

    /// Reads `handle` with blocking reads on a thread of its own until end of file, handing each chunk
    /// to `consume`, then calls `ended`. Not `readabilityHandler`: that arms a libdispatch read source, and
    /// on Linux its teardown races the descriptor's close, which can crash libdispatch's manager thread in
    /// `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949) and the whole test run with it.
    private static func drain(
        _ handle: FileHandle, name: String, _ consume: @escaping @Sendable (Data) -> Void,
        ended: @escaping @Sendable () -> Void = {}
    ) {
        let thread = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty {
                    ended()
                    return
                }
                consume(data)
            }
        }
        thread.name = name
        thread.start()
    }

    /// Complete lines printed so far, without their newlines.
    var allLines: [String] { received.withLock { $0.lines } }

    /// What the probe wrote to standard error.
    var standardError: String { errorText.withLock { $0 } }

    /// Waits for the next line the probe prints after those already taken.
    ///
    /// - Throws: ``NamespaceError`` with everything the probe printed when none comes before the wait's
    ///   deadline, or the probe's output ended without one.
    func nextLine() async throws -> String {
        let consumed = self.consumed
        do {
            try await Wait.until("a line from the probe") { allLines.count > consumed || outputEnded.withLock { $0 } }
        } catch let timeout as WaitTimeout {
            throw NamespaceError("\(timeout); lines so far: \(allLines); standard error: \(standardError)")
        }
        let all = allLines
        guard all.count > consumed else {
            let reason = process.isRunning ? "the probe closed its output" : "the probe exited (\(process.terminationStatus))"
            throw NamespaceError("\(reason); lines so far: \(all); standard error: \(standardError)")
        }
        self.consumed += 1
        return all[consumed]
    }

    /// Waits for the next status line, which must belong to `label`.
    func nextStatus(_ label: String) async throws -> StatusLine {
        let line = try await nextLine()
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count == 3, let nanoseconds = UInt64(fields[2]) else {
            throw NamespaceError("expected a status line of \(label), got \"\(line)\"; all lines: \(allLines)")
        }
        guard fields[0] == label else {
            throw NamespaceError("expected a status of \(label), got \"\(line)\"; all lines: \(allLines)")
        }
        return StatusLine(label: fields[0], status: fields[1], nanoseconds: nanoseconds)
    }

    /// Waits for a line that is exactly `text`.
    func expectLine(_ text: String) async throws {
        let line = try await nextLine()
        guard line == text else { throw NamespaceError("expected \"\(text)\", got \"\(line)\"; all lines: \(allLines)") }
    }

    /// Sends a command (`stop`, `start`).
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// Closes the probe's standard input (it then stops its managers and exits) and waits for it to exit.
    ///
    /// - Throws: ``WaitTimeout`` when it does not exit; ``stop()`` (when the test ends) then kills it.
    func finish() async throws {
        try? input.fileHandleForWriting.close()
        try await Wait.until("the probe exited after its input ended; standard error: \(standardError)") { !process.isRunning }
    }

    /// Closes the probe's standard input and waits for it to exit (killing it after 5 seconds): the
    /// clean-up when a test ends, also on failure, when nothing is asserted any more.
    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Whether it exited with status 0 after ``finish()`` or ``stop()``.
    var exitedCleanly: Bool { !process.isRunning && process.terminationStatus == 0 }
}
