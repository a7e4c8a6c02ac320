#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SluiceCore

/// Watches the kernel's rtnetlink notifications on a thread of its own and reports the target's
/// status: once at the start, then whenever it changes.
///
/// The thread blocks in `poll` on two descriptors: the notification socket (subscribed to link,
/// IPv4/IPv6 address and IPv4/IPv6 route changes) and the read end of a socket pair that
/// ``stop()`` writes to. After a notification it waits ``settleDelay`` so that the burst of
/// messages one change produces is read as one, re-evaluates, and reports when the status
/// differs from the last one reported. ``recheckDelay`` after the last notification it evaluates
/// once more, for changes the kernel makes without a notification of their own (routes flushed
/// when an interface loses its last address). Lost notifications (`ENOBUFS`) and datagrams too
/// large to read also trigger an evaluation; malformed messages are dropped.
final class ReachabilityMonitor: @unchecked Sendable {
    /// Receives statuses on the monitor thread (or, for the first, on the thread that calls
    /// ``start(evaluatingFirstStatusNow:)``).
    typealias Report = @Sendable (NetworkReachabilityStatus) -> Void

    /// How long after a notification the status is evaluated (10 ms).
    static let settleDelay: Duration = .milliseconds(10)
    /// How long after the last notification it is evaluated once more (500 ms).
    static let recheckDelay: Duration = .milliseconds(500)

    private struct Control {
        var thread: pthread_t?
        var isStopped = false
    }

    // The descriptors and `lastStatus` belong to the thread that starts the monitor until the
    // monitor thread exists, then to the monitor thread, which closes them when it ends (or to
    // `stop()` when no thread was ever started).
    private let notifications: NetlinkSocket
    private let evaluator: ReachabilityEvaluator
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let report: Report
    private let control = Locked(Control())
    private var lastStatus: NetworkReachabilityStatus?

    /// The inodes of the two rtnetlink sockets, as `/proc/self/fd` shows them (`socket:[inode]`).
    let socketInodes: [UInt64]

    /// Opens the notification socket, the query socket and the wake-up pair.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityNetlinkUnavailable`` when a
    ///   socket cannot be opened.
    init(
        target: ReachabilityTarget, classifier: InterfaceClassifier = InterfaceClassifier(), report: @escaping Report
    ) throws(SluiceError) {
        notifications = try NetlinkSocket(groups: Netlink.Group.reachability, nonBlocking: true)
        evaluator = try ReachabilityEvaluator(target: target, classifier: classifier)
        var pair: [Int32] = [-1, -1]
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            let number = errno
            notifications.close()
            evaluator.close()
            throw SystemError.make(.reachabilityNetlinkUnavailable, "cannot create the monitor's wake-up socket pair", errno: number)
        }
        wakeReader = pair[0]
        wakeWriter = pair[1]
        self.report = report
        socketInodes = [notifications.inode, evaluator.inode]
    }

    deinit {
        // Only reached when no thread holds the monitor: it was never started, or it was stopped.
        stop()
    }

    /// Starts watching.
    ///
    /// - Parameter evaluatingFirstStatusNow: Whether the first status is evaluated and reported on the
    ///   calling thread before this returns (fast: two or four rtnetlink questions), rather than by the
    ///   monitor thread (for host names, whose lookup can take long).
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityThreadFailed``.
    func start(evaluatingFirstStatusNow: Bool) throws(SluiceError) {
        if evaluatingFirstStatusNow {
            let first: NetworkReachabilityStatus? = control.withLock { control in
                guard !control.isStopped else { return nil }
                let status = evaluator.evaluate()
                lastStatus = status
                return status
            }
            guard let first else { return }
            report(first)
        }
        let result: Int32 = control.withLock { control in
            guard !control.isStopped else { return 0 }
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { context in
                let monitor = Unmanaged<ReachabilityMonitor>.fromOpaque(context!).takeRetainedValue()
                monitor.run()
                return nil
            }, context)
            if created == 0 {
                control.thread = thread
            } else {
                Unmanaged<ReachabilityMonitor>.fromOpaque(context).release()
            }
            return created
        }
        guard result == 0 else {
            stop()
            throw SystemError.make(.reachabilityThreadFailed, "cannot start the reachability thread", errno: result)
        }
    }

    /// Stops watching: wakes the thread, waits for it to close its sockets and end, and reports
    /// nothing more. Safe to call more than once and from any thread, including from a report.
    func stop() {
        enum Action {
            case nothing, closeHere, join(pthread_t), detach(pthread_t)
        }
        let action: Action = control.withLock { control in
            guard !control.isStopped else { return .nothing }
            control.isStopped = true
            guard let thread = control.thread else { return .closeHere }
            return pthread_equal(thread, pthread_self()) != 0 ? .detach(thread) : .join(thread)
        }
        switch action {
        case .nothing:
            return
        case .closeHere:
            closeDescriptor(wakeWriter)
            closeThreadDescriptors()
        case .join(let thread):
            wake()
            closeDescriptor(wakeWriter)
            pthread_join(thread, nil)
        case .detach(let thread):
            // Called from a report on the monitor thread itself: it ends after the report returns.
            closeDescriptor(wakeWriter)
            pthread_detach(thread)
        }
    }

    private var isStopped: Bool { control.withLock { $0.isStopped } }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    private func closeThreadDescriptors() {
        notifications.close()
        evaluator.close()
        closeDescriptor(wakeReader)
    }

    /// The monitor thread.
    private func run() {
        defer { closeThreadDescriptors() }
        setThreadName()
        if lastStatus == nil { evaluateAndReport(always: true) }
        let clock = ContinuousClock()
        var evaluateAt: ContinuousClock.Instant?
        var recheckAt: ContinuousClock.Instant?
        var descriptors = [
            pollfd(fd: notifications.descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
        ]
        while !isStopped {
            let deadline = [evaluateAt, recheckAt].compactMap { $0 }.min()
            let timeout = deadline.map { Self.milliseconds(until: $0, clock: clock) } ?? -1
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno != EINTR { usleep(100_000) }
                continue
            }
            if descriptors[1].revents != 0 { break }
            if descriptors[0].revents != 0, drainNotifications() {
                let now = clock.now
                if evaluateAt == nil { evaluateAt = now.advanced(by: Self.settleDelay) }
                recheckAt = now.advanced(by: Self.recheckDelay)
            }
            let now = clock.now
            if let due = evaluateAt, now >= due {
                evaluateAt = nil
                evaluateAndReport(always: false)
            }
            if let due = recheckAt, now >= due, evaluateAt == nil {
                recheckAt = nil
                evaluateAndReport(always: false)
            }
        }
    }

    /// Reads every pending datagram; whether one of them can change reachability.
    private func drainNotifications() -> Bool {
        var relevant = false
        while true {
            switch notifications.receive() {
            case .datagram(let datagram):
                if NetlinkParser.messages(in: datagram).contains(where: \.affectsReachability) { relevant = true }
            case .overrun, .truncated:
                // Something changed that could not be read: look again.
                relevant = true
            case .foreign:
                continue
            case .nothingToRead:
                return relevant
            case .failed:
                // Avoid spinning on a socket that keeps failing.
                usleep(100_000)
                return true
            }
        }
    }

    private func evaluateAndReport(always: Bool) {
        let status = evaluator.evaluate()
        guard always || status != lastStatus else { return }
        lastStatus = status
        if !isStopped { report(status) }
    }

    /// Whole milliseconds from now until `deadline`, rounded up; 0 when it has passed.
    static func milliseconds(until deadline: ContinuousClock.Instant, clock: ContinuousClock) -> Int32 {
        let remaining = clock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Names the thread `sluice-reach` (as `ps -L`, `top -H` and debuggers show it) through
    /// `/proc/thread-self/comm`, which is what `pthread_setname_np` writes for a thread.
    private func setThreadName() {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = Self.threadName.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        closeDescriptor(descriptor)
    }

    /// The monitor thread's name.
    static let threadName = Array("sluice-reach".utf8)
}
