import Foundation

/// The process's open file descriptors, threads and resident memory, from /proc.
struct Gauges {
    var descriptors: Int
    var threads: Int
    var residentMiB: Double

    static func read() -> Gauges {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return Gauges(descriptors: descriptors, threads: threads, residentMiB: pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576)
    }

    /// Waits up to 10 s for descriptors and threads to come back to `baseline` (a released session's
    /// engine thread ends and its connections close shortly after the last reference goes), then reads.
    static func settle(to baseline: Gauges) async -> Gauges {
        let start = ContinuousClock.now
        var now = read()
        while (now.descriptors > baseline.descriptors || now.threads > baseline.threads), ContinuousClock.now - start < .seconds(10) {
            try? await Task.sleep(for: .milliseconds(100))
            now = read()
        }
        return now
    }
}

/// Writes `line` to standard output at once (unbuffered, so a line per phase shows in a file or a pipe as
/// the phase ends).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
