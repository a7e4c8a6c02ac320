import Foundation

/// Decides what kind of interface a link is, from what the kernel says about it, what sysfs shows,
/// and its name.
///
/// The rules, first match wins:
///
/// 1. `IFF_LOOPBACK`, or hardware type `ARPHRD_LOOPBACK` → ``NetworkReachabilityStatus/InterfaceKind/loopback``.
/// 2. `/sys/class/net/<name>/wireless` or `/sys/class/net/<name>/phy80211` exists, or its `uevent`
///    says `DEVTYPE=wlan` → ``NetworkReachabilityStatus/InterfaceKind/wifi``.
/// 3. Its `uevent` says `DEVTYPE=wwan` → ``NetworkReachabilityStatus/InterfaceKind/wwan``.
/// 4. Hardware type `ARPHRD_IEEE80211` (and its Prism and Radiotap variants) → Wi-Fi;
///    `ARPHRD_RAWIP` (the raw-IP mode of cellular modems) → WWAN.
/// 5. A virtual link, named by its driver (`IFLA_INFO_KIND`): `wwan` and `rmnet` → WWAN; any other
///    (`veth`, `bridge`, `tun`, `bond`, `vlan`, `macvlan`, `wireguard`, `vxlan`, `dummy`, ...)
///    → ``NetworkReachabilityStatus/InterfaceKind/other``.
/// 6. A name starting with `ww` (`wwan0`, systemd's `wwp0s20f0u6`) → WWAN; with `wl` (`wlan0`,
///    `wlp3s0`) → Wi-Fi. This covers systems whose sysfs is not mounted or belongs to another
///    network namespace.
/// 7. Hardware type `ARPHRD_ETHER` → ``NetworkReachabilityStatus/InterfaceKind/ethernet``.
/// 8. Anything else (PPP, IP tunnels, InfiniBand, `ARPHRD_NONE`) → other.
struct InterfaceClassifier: Sendable {
    /// The directory holding one entry per interface. Default `/sys/class/net`.
    var sysfsRoot: String

    /// Reads sysfs under `sysfsRoot`.
    init(sysfsRoot: String = "/sys/class/net") { self.sysfsRoot = sysfsRoot }

    /// The kind of `link`, by the rules above.
    func kind(of link: NetlinkMessage.Link) -> NetworkReachabilityStatus.InterfaceKind {
        if link.flags & Netlink.InterfaceFlags.loopback != 0 || link.hardwareType == Netlink.HardwareType.loopback {
            return .loopback
        }
        let name = link.name ?? ""
        if let directory = sysfsDirectory(for: name) {
            if exists("\(directory)/wireless") || exists("\(directory)/phy80211") { return .wifi }
            switch deviceType(in: directory) {
            case "wlan": return .wifi
            case "wwan": return .wwan
            default: break
            }
        }
        switch link.hardwareType {
        case Netlink.HardwareType.ieee80211, Netlink.HardwareType.ieee80211Prism, Netlink.HardwareType.ieee80211Radiotap:
            return .wifi
        case Netlink.HardwareType.rawIP:
            return .wwan
        default:
            break
        }
        if let kind = link.kind, !kind.isEmpty {
            return kind == "wwan" || kind == "rmnet" ? .wwan : .other
        }
        if name.hasPrefix("ww") { return .wwan }
        if name.hasPrefix("wl") { return .wifi }
        return link.hardwareType == Netlink.HardwareType.ether ? .ethernet : .other
    }

    /// `<sysfsRoot>/<name>`, when the name is a plain interface name (no `/`, not `.` or `..`). The bytes
    /// are checked, not the `Character`s: a `/` followed by a combining mark is one `Character`, not `/`.
    func sysfsDirectory(for name: String) -> String? {
        guard !name.isEmpty, name != ".", name != "..",
            !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
        else { return nil }
        return "\(sysfsRoot)/\(name)"
    }

    /// The `DEVTYPE=` value of `<directory>/uevent`, when there is one.
    func deviceType(in directory: String) -> String? {
        guard let data = FileManager.default.contents(atPath: "\(directory)/uevent"), data.count <= 64 * 1024 else {
            return nil
        }
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
            return String(line.dropFirst("DEVTYPE=".count))
        }
        return nil
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
