import Dispatch
import Foundation
import SluiceReachability

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `sluice-reachability-probe`: runs reachability managers and prints every status they report,
/// one line each, so that tests can watch reachability from inside a network namespace
/// (`ip netns exec NS sluice-reachability-probe ...`).
///
/// ```
/// sluice-reachability-probe LABEL=TARGET...
///     TARGET: default | host:NAME | address:IP
/// ```
///
/// Output lines (flushed as written):
///
/// - `LABEL STATUS MONOTONIC_NS` for each status: `unknown`, `notReachable` or `reachable:KIND`
///   (`ethernet`, `wifi`, `wwan`, `loopback`, `other`), and the `CLOCK_MONOTONIC` time in
///   nanoseconds at which the closure ran;
/// - `started` once every manager is monitoring; `stopped` after a `stop` command; `error MESSAGE`.
///
/// Commands on standard input, one a line: `stop` stops every manager, `start` starts them again;
/// end of input stops them and exits.
@main
struct ReachabilityProbe {
    static let output = DispatchQueue(label: "sluice-reachability-probe.output")

    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard !arguments.isEmpty else { fail("usage: sluice-reachability-probe LABEL=default|host:NAME|address:IP ...") }
        var managers: [(label: String, manager: NetworkReachabilityManager)] = []
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" ") else { fail("bad argument \(argument)") }
            managers.append((parts[0], makeManager(parts[1])))
        }
        start(managers)
        while let line = readLine() {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "stop":
                for entry in managers { entry.manager.stopMonitoring() }
                output.sync { write("stopped") }
            case "start":
                start(managers)
            default:
                output.sync { write("error unknown command \(line)") }
            }
        }
        for entry in managers { entry.manager.stopMonitoring() }
        output.sync { write("exit") }
    }

    static func makeManager(_ target: String) -> NetworkReachabilityManager {
        if target == "default" { return NetworkReachabilityManager() }
        if target.hasPrefix("host:") {
            guard let manager = NetworkReachabilityManager(host: String(target.dropFirst(5))) else { fail("bad host \(target)") }
            return manager
        }
        if target.hasPrefix("address:") {
            do {
                return NetworkReachabilityManager(address: try .init(String(target.dropFirst(8))))
            } catch {
                fail("bad address \(target): \(error)")
            }
        }
        fail("bad target \(target)")
    }

    static func start(_ managers: [(label: String, manager: NetworkReachabilityManager)]) {
        for (label, manager) in managers {
            do {
                try manager.startMonitoring(queue: output) { status in
                    write("\(label) \(token(status)) \(monotonicNanoseconds())")
                }
            } catch {
                fail("cannot monitor \(label): \(error)")
            }
        }
        output.sync { write("started") }
    }

    static func token(_ status: NetworkReachabilityStatus) -> String {
        switch status {
        case .unknown: "unknown"
        case .notReachable: "notReachable"
        case .reachable(let kind): "reachable:\(kind.rawValue)"
        }
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("sluice-reachability-probe: \(message)\n".utf8))
        exit(2)
    }
}
