import Dispatch
import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceReachability

/// Managers monitoring this process's own network namespace. Serialized: some tests count the
/// monitor threads and sockets of the whole process.
@Suite("NetworkReachabilityManager", .serialized)
struct NetworkReachabilityManagerTests {
    @Test("by default statuses go to a queue of the manager's own: they arrive with the main queue blocked")
    func defaultQueueIsNotMain() async throws {
        let manager = NetworkReachabilityManager(address: .ipv4Loopback)
        let releaseMain = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { releaseMain.wait() }
        defer { releaseMain.signal() }
        // Whether the first status ran on the main thread.
        let onMain = TestSignal<Bool>()
        try manager.startMonitoring { _ in onMain.send(Thread.isMainThread) }
        defer { manager.stopMonitoring() }
        #expect(try await onMain.value("a status delivered with the main queue blocked") == false)
    }

    @Test("startMonitoring reports the current status at once: closure on its queue, stream, notification")
    func immediateReport() async throws {
        let manager = NetworkReachabilityManager(address: .ipv4Loopback)
        let queue = DispatchQueue(label: "reachability-test")
        let onQueue = Locked<[Bool]>([])
        let closure = StatusRecorder()
        let notified = StatusRecorder()
        let observer = NotificationCenter.default.addObserver(
            forName: .sluiceNetworkReachabilityDidChange, object: manager, queue: nil
        ) { notification in
            if let status = NetworkReachabilityManager.status(from: notification) { notified.record(status) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        queue.setSpecific(key: Self.queueKey, value: "reachability-test")
        let stream = manager.statusUpdates
        #expect(manager.status == .unknown)
        #expect(!manager.isMonitoring)
        try manager.startMonitoring(queue: queue) { status in
            closure.record(status)
            onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: Self.queueKey) == "reachability-test") }
        }
        defer { manager.stopMonitoring() }
        // Current before startMonitoring returns, without waiting for a change.
        #expect(manager.status == .reachable(.loopback))
        #expect(manager.isReachable && manager.isMonitoring)
        #expect(manager.localizedNetworkReachabilityStatusString == "Reachable via Loopback")
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .reachable(.loopback))
        #expect(try await closure.wait(for: 1) == [.reachable(.loopback)])
        #expect(try await notified.wait(for: 1) == [.reachable(.loopback)])
        #expect(onQueue.withLock { $0 } == [true])
        // A stream opened while monitoring starts with the current status.
        var late = manager.statusUpdates.makeAsyncIterator()
        #expect(await late.next() == .reachable(.loopback))
    }

    static let queueKey = DispatchSpecificKey<String>()

    @Test("the default manager (and shared) reports a known status immediately")
    func defaultRoute() async throws {
        let manager = NetworkReachabilityManager()
        let recorder = StatusRecorder()
        try manager.startMonitoring(queue: DispatchQueue(label: "default")) { recorder.record($0) }
        defer { manager.stopMonitoring() }
        #expect(manager.status != .unknown, "the first status is known when startMonitoring returns")
        let first = try await recorder.wait(for: 1)
        #expect(first == [manager.status])
        #expect(try manager.checkStatus() == manager.status)

        let shared = NetworkReachabilityManager.shared
        #expect(shared === NetworkReachabilityManager.shared)
        try shared.startMonitoring(queue: DispatchQueue(label: "shared"))
        defer { shared.stopMonitoring() }
        #expect(shared.status == manager.status)
    }

    @Test("the main queue delivers when asked for")
    func mainQueue() async throws {
        let manager = NetworkReachabilityManager(address: .ipv4Loopback)
        let recorder = StatusRecorder()
        let onMain = Locked<Bool?>(nil)
        // The main queue may be drained by a thread other than the main thread (after dispatch_main),
        // so ask the queue, not the thread.
        DispatchQueue.main.setSpecific(key: Self.queueKey, value: "main")
        manager.setReachabilityStatusChangeBlock { status in
            onMain.withLock { $0 = DispatchQueue.getSpecific(key: Self.queueKey) == "main" }
            recorder.record(status)
        }
        try manager.startMonitoring(queue: .main)
        defer { manager.stopMonitoring() }
        #expect(try await recorder.wait(for: 1) == [.reachable(.loopback)])
        #expect(onMain.withLock { $0 } == true)
    }

    @Test("host reachability: localhost via loopback, a name that does not resolve is not reachable")
    func hosts() async throws {
        let localhost = try #require(NetworkReachabilityManager(host: "localhost"))
        #expect(try localhost.checkStatus() == .reachable(.loopback))
        var localUpdates = localhost.statusUpdates.makeAsyncIterator()
        try localhost.startMonitoring(queue: DispatchQueue(label: "localhost"))
        defer { localhost.stopMonitoring() }
        #expect(await localUpdates.next() == .reachable(.loopback))

        let missing = try #require(NetworkReachabilityManager(host: "does-not-exist.invalid"))
        #expect(try missing.checkStatus() == .notReachable)
        var missingUpdates = missing.statusUpdates.makeAsyncIterator()
        try missing.startMonitoring(queue: DispatchQueue(label: "missing"))
        defer { missing.stopMonitoring() }
        #expect(await missingUpdates.next() == .notReachable)
        #expect(!missing.isReachable)

        // The resolver's own answer, without the RFC 6761 shortcut.
        #expect(HostResolver.systemAddresses(of: "does-not-exist.invalid").isEmpty)
        #expect(HostResolver.systemAddresses(of: "localhost").contains(.ipv4Loopback))
        #expect(HostResolver.addresses(of: "LOCALHOST.") == [.ipv4Loopback, .ipv6Loopback])
        #expect(HostResolver.addresses(of: "[::1]") == [.ipv6Loopback])

        // A host name that goes through getaddrinfo (an IP literal does not).
        let literal = try #require(NetworkReachabilityManager(host: "127.0.0.1"))
        #expect(try literal.checkStatus() == .reachable(.loopback))
        #expect(!ReachabilityTarget.host("127.0.0.1").needsNameResolution)
        #expect(ReachabilityTarget.host("example.com").needsNameResolution)
        #expect(!ReachabilityTarget.host("a.localhost").needsNameResolution)
    }

    @Test("impossible host names are refused", arguments: ["", ".", "has space", "tab\there", "new\nline", "a/b", String(repeating: "a", count: 254)])
    func invalidHosts(name: String) {
        #expect(NetworkReachabilityManager(host: name) == nil)
    }

    @Test("valid host names are accepted")
    func validHosts() {
        #expect(NetworkReachabilityManager(host: "www.example.com") != nil)
        #expect(NetworkReachabilityManager(host: String(repeating: "a", count: 253) + ".") != nil)
        #expect(NetworkReachabilityManager(host: "[::1]") != nil)
    }

    @Test("an address of this machine is reachable via loopback; IPv6 loopback too")
    func addresses() throws {
        #expect(try NetworkReachabilityManager(address: .ipv4Loopback).checkStatus() == .reachable(.loopback))
        #expect(try NetworkReachabilityManager(address: .init("127.8.9.10")).checkStatus() == .reachable(.loopback))
        let ipv6 = try NetworkReachabilityManager(address: .ipv6Loopback).checkStatus()
        // ::1 exists unless IPv6 is disabled on this machine.
        #expect(ipv6 == .reachable(.loopback) || ipv6 == .notReachable)
    }

    @Test("stopMonitoring closes the netlink sockets and delivers nothing more; monitoring restarts")
    func stopAndRestart() async throws {
        let manager = NetworkReachabilityManager(address: .ipv4Loopback)
        let recorder = StatusRecorder()
        try manager.startMonitoring(queue: DispatchQueue(label: "restart")) { recorder.record($0) }
        let inodes = try #require(manager.monitor?.socketInodes)
        #expect(inodes.count == 2 && !inodes.contains(0))
        #expect(Set(inodes).isSubset(of: ProcessInspection.openSocketInodes()))
        #expect(try await recorder.wait(for: 1).count == 1)
        try await Wait.until("one monitor thread") { ProcessInspection.monitorThreadCount() == 1 }

        manager.stopMonitoring()
        #expect(Set(inodes).isDisjoint(with: ProcessInspection.openSocketInodes()), "sockets closed when stop returns")
        // stop joins the thread; the kernel lists an ended thread until it has reaped it, a moment later.
        try await Wait.until("the monitor thread ended by stop") { ProcessInspection.monitorThreadCount() == 0 }
        #expect(!manager.isMonitoring)
        #expect(manager.status == .unknown)
        manager.stopMonitoring()  // a second stop does nothing

        try manager.startMonitoring(queue: DispatchQueue(label: "restart"))  // keeps the closure
        defer { manager.stopMonitoring() }
        #expect(try await recorder.wait(for: 2) == [.reachable(.loopback), .reachable(.loopback)])
        #expect(manager.status == .reachable(.loopback))
        // Starting again while monitoring replaces the monitor (and reports again).
        let firstInodes = try #require(manager.monitor?.socketInodes)
        try manager.startMonitoring(queue: DispatchQueue(label: "restart"))
        #expect(Set(firstInodes).isDisjoint(with: ProcessInspection.openSocketInodes()))
        #expect(try await recorder.wait(for: 3).count == 3)
        try await Wait.until("one monitor thread, the replaced one ended") { ProcessInspection.monitorThreadCount() == 1 }
    }

    @Test("nothing is delivered after stopMonitoring, even when already queued")
    func noDeliveryAfterStop() async throws {
        let manager = NetworkReachabilityManager(address: .ipv4Loopback)
        let recorder = StatusRecorder()
        let queue = DispatchQueue(label: "blocked")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // hold the queue so the first status waits on it
        try manager.startMonitoring(queue: queue) { recorder.record($0) }
        manager.stopMonitoring()
        gate.signal()
        queue.sync {}
        #expect(recorder.all.isEmpty)
    }

    @Test("a manager released while monitoring stops its thread and closes its sockets")
    func releaseWhileMonitoring() async throws {
        weak var weakManager: NetworkReachabilityManager?
        weak var weakMonitor: ReachabilityMonitor?
        var inodes: [UInt64] = []
        let recorder = StatusRecorder()
        let streamReader: Task<Int, Never>
        do {
            let manager = NetworkReachabilityManager()
            let stream = manager.statusUpdates
            try manager.startMonitoring(queue: DispatchQueue(label: "released")) { recorder.record($0) }
            weakManager = manager
            weakMonitor = manager.monitor
            inodes = manager.monitor?.socketInodes ?? []
            try await Wait.until("one monitor thread") { ProcessInspection.monitorThreadCount() == 1 }
            streamReader = Task.detached {
                var count = 0
                for await _ in stream { count += 1 }
                return count
            }
            // The first status arrives while the manager is alive: once it is released, nothing more
            // need be delivered, so waiting for it afterwards would race with the release.
            #expect(try await recorder.wait(for: 1).count == 1)
        }
        try await Wait.until("the released manager is gone") { weakManager == nil }
        #expect(weakMonitor == nil, "the monitor (held by its thread while it runs) is gone")
        #expect(inodes.count == 2)
        #expect(Set(inodes).isDisjoint(with: ProcessInspection.openSocketInodes()))
        // When the last reference goes on the monitor thread itself, the thread is detached and ends just
        // after it drops the monitor: it may still be listed for a moment.
        try await Wait.until("the monitor thread ended") { ProcessInspection.monitorThreadCount() == 0 }
        #expect(await streamReader.value == 1, "the stream got the first status, then finished")
    }

    @Test("streams finish when their manager is released")
    func streamFinishes() async throws {
        var manager: NetworkReachabilityManager? = NetworkReachabilityManager(address: .ipv4Loopback)
        let stream = try #require(manager?.statusUpdates)
        try manager?.startMonitoring(queue: DispatchQueue(label: "stream"))
        // The manager is released once the reader has the first status (released before, it need deliver
        // nothing more).
        let first = TestSignal<Void>()
        let reader = Task {
            var seen: [NetworkReachabilityStatus] = []
            for await status in stream {
                seen.append(status)
                first.send()
            }
            return seen
        }
        try await first.value("the first status reached the stream")
        manager = nil
        #expect(await reader.value == [.reachable(.loopback)])
    }

    @Test("concurrent starts and stops from many threads leave no monitor, thread or socket behind")
    func concurrentStartStop() async throws {
        let manager = NetworkReachabilityManager(address: .ipv4Loopback)
        let before = ProcessInspection.openNetlinkSocketInodes()
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<25 {
                if (worker + round) % 3 == 0 {
                    manager.stopMonitoring()
                } else {
                    do { try manager.startMonitoring(queue: DispatchQueue(label: "race")) } catch { failures.withLock { $0 += 1 } }
                }
                _ = manager.status
            }
        }
        #expect(failures.withLock { $0 } == 0)
        // Counted process-wide, so waited for: a monitor another test stopped from its own report ends
        // just after that report returns, and other suites may be stopping theirs meanwhile.
        try await Wait.until("at most one monitor thread") { ProcessInspection.monitorThreadCount() <= 1 }
        manager.stopMonitoring()
        try await Wait.until("no monitor thread") { ProcessInspection.monitorThreadCount() == 0 }
        // Other suites open short-lived netlink sockets of their own; a leak would stay.
        try await Wait.until("no netlink socket left open: \(ProcessInspection.openNetlinkSocketInodes().subtracting(before))") {
            ProcessInspection.openNetlinkSocketInodes().subtracting(before).isEmpty
        }
    }

    @Test("a status closure may release the last reference to its manager")
    func releaseFromClosure() async throws {
        let holder = Locked<NetworkReachabilityManager?>(NetworkReachabilityManager(address: .ipv4Loopback))
        let released = StatusRecorder()
        try holder.withLock { $0 }?.startMonitoring(queue: DispatchQueue(label: "self-release")) { status in
            holder.withLock { $0 = nil }
            released.record(status)
        }
        #expect(try await released.wait(for: 1).count == 1)
        try await Wait.until("the monitor thread ended") { ProcessInspection.monitorThreadCount() == 0 }
    }

    @Test("errors carry stable codes")
    func errorCodes() {
        #expect(SluiceError.Code.reachabilityNetlinkUnavailable.rawValue == "reachability.netlinkUnavailable")
        #expect(SluiceError.Code.reachabilityThreadFailed.rawValue == "reachability.threadFailed")
        #expect(SluiceError.Code.reachabilityInvalidAddress.area == "reachability")
    }
}
