import Foundation
import SluiceConformance
import SluiceCore
import SluiceTransport

/// `sluice-soak`: a mixed workload through the fault proxy (Tools/testenv/faultproxy.py, port `mixed`) and
/// straight to nginx and httpbin, in phases, each with a session of its own that is released at the end.
///
/// Checked, each a failure of the run:
/// - every task ends exactly once, with a result or a `SluiceError` (a completion handler called twice,
///   or never within the phase's deadline, is counted);
/// - after each phase, once its session is released, the open file descriptors come back to where they
///   were after the first phase, and the threads within two of it (the concurrency pool may grow), waited
///   for up to 10 s;
/// - the resident memory after the two warm-up phases grows less than 5 MiB per million requests (less
///   than 5 MiB in all over a shorter run).
///
/// Usage: `sluice-soak [seconds] [report-directory]` (default 600 s, reports/soak), with the servers of
/// `make servers` running; `sluice-soak storm [tasks] [rounds]` runs the cancellation storm instead
/// (``CancellationStorm``). Prints a line per phase and a summary; writes `phases.csv` and `summary.json`.
@main
struct SoakProgram {
    /// What one phase did and left behind.
    struct Phase: Codable {
        var index: Int
        var requests = 0
        var succeeded = 0
        var failures: [String: Int] = [:]
        var violations: [String] = []
        var seconds = 0.0
        var residentMiB = 0.0
        var descriptors = 0
        var threads = 0
    }

    static func main() async {
        // What the run made is released before exit, so LeakSanitizer's exit-time check finds nothing held
        // only by main's frame.
        exit(await status())
    }

    /// Runs the soak or the storm; the exit status.
    static func status() async -> Int32 {
        let arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "storm" {
            guard let servers = try? ServerEnvironment.load() else {
                FileHandle.standardError.write(Data("sluice-soak: no servers; start them with \(ServerEnvironment.startCommand)\n".utf8))
                return 2
            }
            let tasks = arguments.count > 2 ? Int(arguments[2]) ?? 5_000 : 5_000
            let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
            return await CancellationStorm.run(servers: servers, tasks: tasks, rounds: rounds)
        }
        let duration = arguments.count > 1 ? Double(arguments[1]) ?? 600 : 600
        let reportDirectory = URL(fileURLWithPath: arguments.count > 2 ? arguments[2] : "reports/soak")
        let servers: ServerEnvironment
        do {
            servers = try ServerEnvironment.load()
        } catch {
            FileHandle.standardError.write(Data("sluice-soak: \(error)\n".utf8))
            return 2
        }
        guard let workload = Workload(servers: servers) else {
            FileHandle.standardError.write(Data("sluice-soak: the servers or the fault proxy are not configured; start them with \(ServerEnvironment.startCommand)\n".utf8))
            return 2
        }
        let start = Gauges.read()
        say("sluice-soak: \(Int(duration)) s; at start \(start.descriptors) descriptors, \(start.threads) threads, \(String(format: "%.1f", start.residentMiB)) MiB")
        // The baseline is the state after the first phase, once its session is gone: the runtime's own
        // threads and descriptors (the concurrency pool, Dispatch) exist from then on.
        var baseline: Gauges?
        let started = ContinuousClock.now
        var phases: [Phase] = []
        var index = 0
        while ContinuousClock.now - started < .seconds(duration) || phases.count < 3 {
            index += 1
            var phase = await workload.run(phase: index)
            let settled = await Gauges.settle(to: baseline ?? start)
            phase.residentMiB = settled.residentMiB
            phase.descriptors = settled.descriptors
            phase.threads = settled.threads
            if let baseline {
                if settled.descriptors > baseline.descriptors {
                    phase.violations.append("\(settled.descriptors - baseline.descriptors) more descriptors open than after phase 1, its session released")
                }
                if settled.threads > baseline.threads + 2 {
                    phase.violations.append("\(settled.threads - baseline.threads) more threads than after phase 1, its session released")
                }
            } else {
                baseline = settled
            }
            let failures = phase.failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            say(String(format: "phase %3d: %5d requests, %5d ok, %.1f s, %.1f MiB, %d fds, %d threads; errors: %@%@",
                         index, phase.requests, phase.succeeded, phase.seconds, phase.residentMiB, phase.descriptors, phase.threads,
                         failures.isEmpty ? "none" : failures, phase.violations.isEmpty ? "" : "; VIOLATIONS: " + phase.violations.joined(separator: "; ")))
            phases.append(phase)
        }
        // Memory: from the end of the warm-up (the first two phases) to the end.
        let warm = phases[1].residentMiB
        let growth = phases.last!.residentMiB - warm
        let requestsAfterWarmUp = phases.dropFirst(2).reduce(0) { $0 + $1.requests }
        let perMillion = requestsAfterWarmUp > 0 ? growth / Double(requestsAfterWarmUp) * 1_000_000 : 0
        let violations = phases.flatMap(\.violations)
        let total = phases.reduce(0) { $0 + $1.requests }
        var summary: [String: String] = [
            "seconds": String(format: "%.0f", (ContinuousClock.now - started) / .seconds(1)),
            "phases": "\(phases.count)", "requests": "\(total)",
            "succeeded": "\(phases.reduce(0) { $0 + $1.succeeded })",
            "residentAfterWarmUpMiB": String(format: "%.2f", warm), "residentAtEndMiB": String(format: "%.2f", phases.last!.residentMiB),
            "growthAfterWarmUpMiB": String(format: "%.2f", growth), "requestsAfterWarmUp": "\(requestsAfterWarmUp)",
            "growthPerMillionRequestsMiB": String(format: "%.2f", perMillion), "violations": "\(violations.count)",
        ]
        var codes: [String: Int] = [:]
        for phase in phases { codes.merge(phase.failures, uniquingKeysWith: +) }
        for (code, count) in codes { summary["errors." + code] = "\(count)" }
        try? FileManager.default.createDirectory(at: reportDirectory, withIntermediateDirectories: true)
        let csv = ["phase,requests,succeeded,seconds,resident_mib,descriptors,threads"] + phases.map {
            "\($0.index),\($0.requests),\($0.succeeded),\(String(format: "%.2f", $0.seconds)),\(String(format: "%.2f", $0.residentMiB)),\($0.descriptors),\($0.threads)"
        }
        try? csv.joined(separator: "\n").appending("\n").write(to: reportDirectory.appendingPathComponent("phases.csv"), atomically: true, encoding: .utf8)
        if let json = try? JSONSerialization.data(withJSONObject: summary, options: [.prettyPrinted, .sortedKeys]) {
            try? json.write(to: reportDirectory.appendingPathComponent("summary.json"))
        }
        say("sluice-soak: \(total) requests in \(phases.count) phases; errors by code: \(codes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        say(String(format: "sluice-soak: resident memory %.1f MiB after warm-up, %.1f MiB at the end: %+.2f MiB over %d requests (%+.2f MiB per million)",
                     warm, phases.last!.residentMiB, growth, requestsAfterWarmUp, perMillion))
        // The limit: 5 MiB over a million requests after the warm-up (over a shorter run, 5 MiB in all).
        let memoryOK = growth < 5 * max(1, Double(requestsAfterWarmUp) / 1_000_000)
        if !violations.isEmpty || !memoryOK {
            say("sluice-soak: FAILED: \(violations.count) violations\(memoryOK ? "" : ", memory grew \(String(format: "%.1f", growth)) MiB")")
            return 1
        }
        say("sluice-soak: passed")
        return 0
    }
}
