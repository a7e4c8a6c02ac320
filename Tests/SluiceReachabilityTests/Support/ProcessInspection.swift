import SluiceCore
import SluiceReachability
import SluiceTestSupport
import Foundation

/// What `/proc` says about this test process: its open sockets and its threads.
enum ProcessInspection {
    /// The inodes of the sockets this process holds open (`/proc/self/fd/N -> socket:[inode]`).
    static func openSocketInodes() -> Set<UInt64> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var inodes = Set<UInt64>()
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { continue }
            if let inode = UInt64(target.dropFirst("socket:[".count).dropLast()) { inodes.insert(inode) }
        }
        return inodes
    }

    /// The inodes of the netlink sockets this process holds open: its open sockets that
    /// `/proc/net/netlink` lists.
    static func openNetlinkSocketInodes() -> Set<UInt64> {
        let table = (try? String(contentsOfFile: "/proc/net/netlink", encoding: .utf8)) ?? ""
        let netlink = Set(table.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").last.flatMap { UInt64($0) } })
        return openSocketInodes().intersection(netlink)
    }

    /// How many threads of this process are reachability monitors (named `sluice-reach`).
    static func monitorThreadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines) == "sluice-reach"
        }.count
    }
}

/// Collects what a manager delivers, from any thread.
final class StatusRecorder: Sendable {
    private let statuses = Locked<[NetworkReachabilityStatus]>([])

    /// Records one status.
    func record(_ status: NetworkReachabilityStatus) { statuses.withLock { $0.append(status) } }

    /// Everything recorded so far.
    var all: [NetworkReachabilityStatus] { statuses.withLock { $0 } }

    /// Waits until `count` statuses have arrived; what arrived.
    ///
    /// - Throws: ``WaitTimeout`` when they do not.
    func wait(for count: Int) async throws -> [NetworkReachabilityStatus] {
        try await Wait.until("\(count) status(es) delivered (\(all.count) so far)") { all.count >= count }
        return all
    }
}
