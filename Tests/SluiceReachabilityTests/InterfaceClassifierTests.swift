import Foundation
import Testing

@testable import SluiceReachability

@Suite("Interface kinds")
struct InterfaceClassifierTests {
    /// A fake `/sys/class/net` in a temporary directory.
    final class FakeSysfs {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-sysfs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        /// Adds `<name>/` with a `uevent` holding `DEVTYPE=<devtype>` when given, and the listed
        /// subdirectories.
        func add(_ name: String, devtype: String? = nil, directories: [String] = []) throws {
            let directory = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var uevent = "INTERFACE=\(name)\nIFINDEX=3\n"
            if let devtype { uevent += "DEVTYPE=\(devtype)\n" }
            try Data(uevent.utf8).write(to: directory.appendingPathComponent("uevent"))
            for subdirectory in directories {
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent(subdirectory), withIntermediateDirectories: true)
            }
        }

        var classifier: InterfaceClassifier { InterfaceClassifier(sysfsRoot: root.path) }
    }

    static func link(
        _ name: String?, type: UInt16 = Netlink.HardwareType.ether, flags: UInt32 = 0x11043, kind: String? = nil
    ) -> NetlinkMessage.Link {
        NetlinkMessage.Link(family: 0, hardwareType: type, index: 3, flags: flags, change: 0, name: name, kind: kind)
    }

    @Test("sysfs markers: wireless/, phy80211, DEVTYPE=wlan → Wi-Fi; DEVTYPE=wwan → WWAN")
    func sysfsMarkers() throws {
        let sysfs = try FakeSysfs()
        try sysfs.add("radio0", directories: ["wireless"])
        try sysfs.add("radio1", directories: ["phy80211"])
        try sysfs.add("radio2", devtype: "wlan")
        try sysfs.add("modem0", devtype: "wwan")
        try sysfs.add("enp3s0")
        let classifier = sysfs.classifier
        #expect(classifier.kind(of: Self.link("radio0")) == .wifi)
        #expect(classifier.kind(of: Self.link("radio1")) == .wifi)
        #expect(classifier.kind(of: Self.link("radio2")) == .wifi)
        #expect(classifier.kind(of: Self.link("modem0")) == .wwan)
        #expect(classifier.kind(of: Self.link("enp3s0")) == .ethernet)
    }

    @Test("loopback flag or type wins over everything")
    func loopback() throws {
        let sysfs = try FakeSysfs()
        try sysfs.add("lo", directories: ["wireless"])
        #expect(sysfs.classifier.kind(of: Self.link("lo", type: Netlink.HardwareType.loopback, flags: 0x49)) == .loopback)
        #expect(sysfs.classifier.kind(of: Self.link("weird", type: 1, flags: 0x8 | 0x1)) == .loopback)
    }

    @Test("virtual drivers are other, except the cellular ones")
    func virtualLinks() throws {
        let classifier = try FakeSysfs().classifier
        for kind in ["veth", "bridge", "tun", "bond", "vlan", "macvlan", "wireguard", "vxlan", "dummy"] {
            #expect(classifier.kind(of: Self.link("eth0", kind: kind)) == .other, "\(kind)")
        }
        #expect(classifier.kind(of: Self.link("rmnet_data0", type: Netlink.HardwareType.none, kind: "rmnet")) == .wwan)
        #expect(classifier.kind(of: Self.link("mhi0", type: Netlink.HardwareType.none, kind: "wwan")) == .wwan)
    }

    @Test("hardware types: 802.11 → Wi-Fi, raw IP → WWAN, Ethernet → Ethernet, PPP and tunnels → other")
    func hardwareTypes() throws {
        let classifier = try FakeSysfs().classifier
        #expect(classifier.kind(of: Self.link("mon0", type: Netlink.HardwareType.ieee80211Radiotap)) == .wifi)
        #expect(classifier.kind(of: Self.link("qmi0", type: Netlink.HardwareType.rawIP)) == .wwan)
        #expect(classifier.kind(of: Self.link("eno1")) == .ethernet)
        #expect(classifier.kind(of: Self.link("ppp0", type: Netlink.HardwareType.ppp)) == .other)
        #expect(classifier.kind(of: Self.link("sit0", type: 776)) == .other)
        #expect(classifier.kind(of: Self.link(nil)) == .ethernet)
    }

    @Test("names, when sysfs says nothing: ww* → WWAN, wl* → Wi-Fi")
    func names() throws {
        let classifier = try FakeSysfs().classifier
        #expect(classifier.kind(of: Self.link("wwan0")) == .wwan)
        #expect(classifier.kind(of: Self.link("wwp0s20f0u6")) == .wwan)
        #expect(classifier.kind(of: Self.link("wlan0")) == .wifi)
        #expect(classifier.kind(of: Self.link("wlp3s0")) == .wifi)
        #expect(classifier.kind(of: Self.link("eth0")) == .ethernet)
    }

    @Test("names that are not plain file names never reach sysfs")
    func unsafeNames() throws {
        let sysfs = try FakeSysfs()
        try sysfs.add("x", directories: ["wireless"])
        let classifier = sysfs.classifier
        #expect(classifier.sysfsDirectory(for: "../x") == nil)
        #expect(classifier.sysfsDirectory(for: "..") == nil)
        #expect(classifier.sysfsDirectory(for: "") == nil)
        // A slash followed by a combining mark is one Character, not "/": the check is on bytes.
        #expect(classifier.sysfsDirectory(for: "../\u{301}x") == nil)
        #expect(classifier.sysfsDirectory(for: "a/\u{301}") == nil)
        #expect(classifier.kind(of: Self.link("a/../x")) == .ethernet)
        #expect(classifier.kind(of: Self.link("x")) == .wifi)
    }

    @Test("this machine's loopback interface, read from the kernel, is loopback")
    func realLoopback() throws {
        let querier = try RouteQuerier()
        defer { querier.close() }
        guard case .link(let loopback) = querier.link(index: 1) else {
            Issue.record("the kernel did not describe interface 1")
            return
        }
        #expect(loopback.name == "lo")
        #expect(InterfaceClassifier().kind(of: loopback) == .loopback)
        #expect(querier.link(index: 999_999) == .missing)
    }
}
