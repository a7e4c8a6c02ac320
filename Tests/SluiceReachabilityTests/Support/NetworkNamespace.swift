import Foundation
import SluiceCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A network namespace made for one test, with `ip` commands run against it.
///
/// Needs root and iproute2's `ip`; without them ``init(_:)`` throws with a message saying so (the
/// tests that use it fail, they are never skipped). ``remove()`` deletes the namespace and whatever
/// interfaces live in it; call it in a `defer` so it also happens when the test fails. Namespaces
/// left behind by a test process that was killed are removed the next time one is made.
final class NetworkNamespace: @unchecked Sendable {
    /// Every namespace these tests create starts with this.
    static let prefix = "sluice-reach-"
    private static let counter = Locked(0)

    /// The namespace's name: `sluice-reach-<pid>-<n>`.
    let name: String
    private var isRemoved = false

    /// Creates a namespace whose name starts with `sluice-reach-<pid>-`.
    ///
    /// - Throws: ``NamespaceError`` when not root, when `ip` is missing, or when `ip netns add` fails.
    init(_ purpose: String) throws {
        try Self.requirePrivileges()
        Self.removeStale()
        let number = Self.counter.withLock { counter -> Int in
            counter += 1
            return counter
        }
        name = "\(Self.prefix)\(getpid())-\(number)-\(purpose)"
        try Self.ip(["netns", "add", name])
    }

    deinit { remove() }

    /// Deletes the namespace; later calls do nothing.
    func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        _ = try? Self.ip(["netns", "delete", name])
    }

    /// When a command started and when `Process` saw it exit, as `CLOCK_MONOTONIC` nanoseconds.
    struct CommandTiming {
        let started: UInt64
        let finished: UInt64
    }

    /// Runs `ip -n <name> ARGUMENTS`.
    ///
    /// - Returns: When the command started and when it had exited.
    /// - Throws: ``NamespaceError`` with `ip`'s output when it fails.
    @discardableResult
    func ip(_ arguments: String...) throws -> CommandTiming {
        let started = Self.monotonicNanoseconds()
        try Self.ip(["-n", name] + arguments)
        return CommandTiming(started: started, finished: Self.monotonicNanoseconds())
    }

    // MARK: Environment

    /// Where `ip` is, or `nil`.
    static let ipPath: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return directories.map { "\($0)/ip" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Throws unless the process is root and `ip` is installed.
    static func requirePrivileges() throws {
        guard geteuid() == 0 else {
            throw NamespaceError(
                "the network-namespace reachability tests must run as root (they create namespaces and veth pairs); "
                    + "run them as root, as CI does")
        }
        guard ipPath != nil else {
            throw NamespaceError("iproute2's `ip` is not installed; Tools/testenv/install.sh installs it (apt-get install iproute2)")
        }
    }

    /// Runs `ip ARGUMENTS`; throws with its output when it fails.
    @discardableResult
    static func ip(_ arguments: [String]) throws -> String {
        guard let ipPath else { throw NamespaceError("iproute2's `ip` is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ipPath)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw NamespaceError("`ip \(arguments.joined(separator: " "))` failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }

    /// Deletes `sluice-reach-<pid>-…` namespaces whose process no longer exists.
    static func removeStale() {
        guard let list = try? ip(["netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix),
                let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }),
                pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            _ = try? ip(["netns", "delete", name])
        }
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds: the clock the probe stamps its lines with.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// Why a network-namespace test could not set up or run.
struct NamespaceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
