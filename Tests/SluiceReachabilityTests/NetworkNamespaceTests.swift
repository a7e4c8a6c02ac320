import Foundation
import SluiceCore
import Testing

/// Real network changes, made inside network namespaces created for each test, watched by
/// `sluice-reachability-probe` running inside them.
///
/// Needs root and iproute2 (CI runs as root; `Tools/testenv/install.sh` installs iproute2). Without
/// them the tests fail with a message saying so. Each namespace is deleted when its test ends, also
/// on failure. Serialized, so the measured latencies are not skewed by each other.
@Suite("Reachability in network namespaces", .tags(.slow), .runsLong, .serialized)
struct NetworkNamespaceTests {
    /// How long each status change took to reach the probe's closure, for the report: from the
    /// start of the `ip` command that made it (so it includes starting `ip`).
    final class Latencies: @unchecked Sendable {
        private var entries: [(change: String, milliseconds: Double)] = []

        func add(_ change: String, line nanoseconds: UInt64, command: NetworkNamespace.CommandTiming) {
            entries.append((change, Double(Int64(nanoseconds) - Int64(command.started)) / 1e6))
        }

        func report(_ title: String) {
            var lines = ["reachability latency, \(title): from the start of `ip` to the closure"]
            for entry in entries {
                lines.append(String(format: "  %-50@ %7.2f ms", entry.change as NSString, entry.milliseconds))
            }
            let values = entries.map(\.milliseconds).sorted()
            if !values.isEmpty {
                lines.append(
                    String(format: "  median %.2f ms, max %.2f ms over %d changes", values[values.count / 2], values.last!, values.count))
            }
            print(lines.joined(separator: "\n"))
        }
    }

    /// Runs `change`, then expects the probe's next status line to be `label expected`.
    private func expectChange(
        _ probe: ProbeProcess, _ latencies: Latencies, _ description: String, _ label: String, _ expected: String,
        _ change: () throws -> NetworkNamespace.CommandTiming
    ) async throws {
        let command = try change()
        let line = try await probe.nextStatus(label)
        #expect(line.status == expected, "after \(description)")
        latencies.add("\(description) → \(line.status)", line: line.nanoseconds, command: command)
    }

    /// Runs `change`, then expects the next status lines to be `expected`, in any order (each
    /// manager has its own monitor thread).
    private func expectChanges(
        _ probe: ProbeProcess, _ latencies: Latencies, _ description: String, _ expected: [String: String],
        _ change: () throws -> NetworkNamespace.CommandTiming
    ) async throws {
        let command = try change()
        var seen: [String: String] = [:]
        for _ in 0..<expected.count {
            let fields = try await probe.nextLine().split(separator: " ").map(String.init)
            try #require(fields.count == 3, "a status line: \(fields)")
            seen[fields[0]] = fields[1]
            latencies.add("\(description): \(fields[0]) → \(fields[1])", line: UInt64(fields[2]) ?? 0, command: command)
        }
        #expect(seen == expected, "after \(description)")
    }

    /// Reads `count` status lines (in any order) and then `started`.
    private func initialStatuses(_ probe: ProbeProcess, count: Int) async throws -> [String: String] {
        var statuses: [String: String] = [:]
        for _ in 0..<count {
            let fields = try await probe.nextLine().split(separator: " ").map(String.init)
            try #require(fields.count == 3, "a status line: \(fields)")
            statuses[fields[0]] = fields[1]
        }
        try await probe.expectLine("started")
        return statuses
    }

    @Test("default route: address, default route, carrier and link changes, IPv4 and IPv6, each reported in order")
    func defaultRoute() async throws {
        let namespace = try NetworkNamespace("default")
        defer { namespace.remove() }
        try namespace.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
        try namespace.ip("link", "set", "vb", "up")
        let probe = try ProbeProcess(in: namespace, targets: ["net=default"])
        defer { probe.stop() }
        let latencies = Latencies()

        #expect(try await initialStatuses(probe, count: 1) == ["net": "notReachable"])
        // Link up and an on-link address give no route to the Internet: no change is reported.
        try namespace.ip("link", "set", "va", "up")
        try namespace.ip("addr", "add", "10.200.0.2/24", "dev", "va")
        try await expectChange(probe, latencies, "default route added", "net", "reachable:other") {
            try namespace.ip("route", "add", "default", "via", "10.200.0.1", "dev", "va")
        }
        try await expectChange(probe, latencies, "carrier lost (peer down)", "net", "notReachable") {
            try namespace.ip("link", "set", "vb", "down")
        }
        try await expectChange(probe, latencies, "carrier back (peer up)", "net", "reachable:other") {
            try namespace.ip("link", "set", "vb", "up")
        }
        try await expectChange(probe, latencies, "link down", "net", "notReachable") {
            try namespace.ip("link", "set", "va", "down")
        }
        // Taking the link down flushed its default route: up again is still not reachable.
        try namespace.ip("link", "set", "va", "up")
        try await expectChange(probe, latencies, "default route added again", "net", "reachable:other") {
            try namespace.ip("route", "add", "default", "via", "10.200.0.1", "dev", "va")
        }
        try await expectChange(probe, latencies, "default route removed", "net", "notReachable") {
            try namespace.ip("route", "del", "default")
        }
        try await expectChange(probe, latencies, "default route restored", "net", "reachable:other") {
            try namespace.ip("route", "add", "default", "via", "10.200.0.1", "dev", "va")
        }
        // Removing the last address makes the kernel flush the default route without a notification
        // of its own: the re-check after the address notification catches it.
        try await expectChange(probe, latencies, "last IPv4 address removed", "net", "notReachable") {
            try namespace.ip("addr", "del", "10.200.0.2/24", "dev", "va")
        }
        try namespace.ip("-6", "addr", "add", "2001:db8:1::2/64", "dev", "va", "nodad")
        try await expectChange(probe, latencies, "IPv6 default route added", "net", "reachable:other") {
            try namespace.ip("-6", "route", "add", "default", "via", "2001:db8:1::1", "dev", "va")
        }
        try await expectChange(probe, latencies, "IPv6 default route removed", "net", "notReachable") {
            try namespace.ip("-6", "route", "del", "default")
        }
        // One more change, as a marker: the one monitor thread handles the netlink events in order, so a
        // status the changes before could still cause would be reported before the marker's.
        try await expectChange(probe, latencies, "IPv6 default route added again", "net", "reachable:other") {
            try namespace.ip("-6", "route", "add", "default", "via", "2001:db8:1::1", "dev", "va")
        }
        #expect(probe.allLines.count == 13, "no other status was reported: \(probe.allLines)")
        try await probe.finish()
        #expect(probe.exitedCleanly, "the probe stopped its manager and exited: \(probe.standardError)")
        latencies.report("default route")
    }

    @Test("an address: link up and down, carrier, address added and removed, each reported in order")
    func address() async throws {
        let namespace = try NetworkNamespace("address")
        defer { namespace.remove() }
        try namespace.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
        let probe = try ProbeProcess(in: namespace, targets: ["peer=address:10.201.0.1"])
        defer { probe.stop() }
        let latencies = Latencies()

        #expect(try await initialStatuses(probe, count: 1) == ["peer": "notReachable"])
        try namespace.ip("link", "set", "vb", "up")
        try namespace.ip("link", "set", "va", "up")
        try await expectChange(probe, latencies, "address added (on-link route)", "peer", "reachable:other") {
            try namespace.ip("addr", "add", "10.201.0.2/24", "dev", "va")
        }
        try await expectChange(probe, latencies, "link down", "peer", "notReachable") {
            try namespace.ip("link", "set", "va", "down")
        }
        try await expectChange(probe, latencies, "link up", "peer", "reachable:other") {
            try namespace.ip("link", "set", "va", "up")
        }
        try await expectChange(probe, latencies, "carrier lost (peer down)", "peer", "notReachable") {
            try namespace.ip("link", "set", "vb", "down")
        }
        try await expectChange(probe, latencies, "carrier back (peer up)", "peer", "reachable:other") {
            try namespace.ip("link", "set", "vb", "up")
        }
        try await expectChange(probe, latencies, "address removed", "peer", "notReachable") {
            try namespace.ip("addr", "del", "10.201.0.2/24", "dev", "va")
        }
        // One more change, as a marker: the one monitor thread handles the netlink events in order, so a
        // status the changes before could still cause would be reported before the marker's.
        try await expectChange(probe, latencies, "address added again", "peer", "reachable:other") {
            try namespace.ip("addr", "add", "10.201.0.2/24", "dev", "va")
        }
        #expect(probe.allLines.count == 9, "no other status was reported: \(probe.allLines)")
        latencies.report("address")
    }

    @Test("a fresh namespace: no route means not reachable; localhost follows lo; stop and start inside it")
    func freshNamespace() async throws {
        let namespace = try NetworkNamespace("fresh")
        defer { namespace.remove() }
        let targets = [
            "lo=host:localhost", "far=address:203.0.113.1", "net=default", "nx=host:does-not-exist.invalid",
            "lo4=address:127.0.0.1",
        ]
        let probe = try ProbeProcess(in: namespace, targets: targets)
        defer { probe.stop() }
        let latencies = Latencies()
        let notReachable = ["lo": "notReachable", "far": "notReachable", "net": "notReachable", "nx": "notReachable", "lo4": "notReachable"]

        #expect(try await initialStatuses(probe, count: targets.count) == notReachable, "lo is down: nothing is reachable")
        try await expectChanges(probe, latencies, "lo up", ["lo": "reachable:loopback", "lo4": "reachable:loopback"]) {
            try namespace.ip("link", "set", "lo", "up")
        }
        // A bounded negative check: five managers, each with a monitor thread of its own, and no change that
        // the three unreachable ones report, so no later line can mark the end of what they might still
        // say. Every line counted has been read already: a slow machine can only make the check weaker.
        try await Task.sleep(for: .milliseconds(700))
        #expect(probe.allLines.count == targets.count + 3, "203.0.113.1, the default route and the .invalid name stay unreachable: \(probe.allLines)")

        // Restarting reports every status again.
        probe.send("stop")
        try await probe.expectLine("stopped")
        probe.send("start")
        let restarted = try await initialStatuses(probe, count: targets.count)
        #expect(restarted == notReachable.merging(["lo": "reachable:loopback", "lo4": "reachable:loopback"]) { $1 })

        try await expectChanges(probe, latencies, "lo down", ["lo": "notReachable", "lo4": "notReachable"]) {
            try namespace.ip("link", "set", "lo", "down")
        }
        try await probe.finish()
        #expect(probe.exitedCleanly, "the probe stopped its managers and exited: \(probe.standardError)")
        latencies.report("fresh namespace")
    }

    @Test("namespaces made by these tests are gone afterwards, also when a test fails")
    func cleanup() throws {
        var name = ""
        do {
            let namespace = try NetworkNamespace("cleanup")
            defer { namespace.remove() }
            name = namespace.name
            try namespace.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
            #expect(try NetworkNamespace.ip(["netns", "list"]).contains(name))
            // A failing command inside the test body: the defer still removes the namespace.
            try namespace.ip("link", "set", "no-such-interface", "up")
            Issue.record("the command above should have failed")
        } catch let error as NamespaceError {
            #expect(error.description.contains("no-such-interface"))
        }
        #expect(!(try NetworkNamespace.ip(["netns", "list"]).contains(name)))
    }
}
