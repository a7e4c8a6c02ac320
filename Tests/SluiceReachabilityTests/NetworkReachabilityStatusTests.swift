import SluiceReachability
import Testing

@Suite("NetworkReachabilityStatus")
struct NetworkReachabilityStatusTests {
    @Test("AFNetworking's status strings and flags")
    func strings() {
        #expect(NetworkReachabilityStatus.unknown.localizedDescription == "Unknown")
        #expect(NetworkReachabilityStatus.notReachable.localizedDescription == "Not Reachable")
        #expect(NetworkReachabilityStatus.reachable(.wwan).localizedDescription == "Reachable via WWAN")
        #expect(NetworkReachabilityStatus.reachable(.wifi).localizedDescription == "Reachable via WiFi")
        #expect(NetworkReachabilityStatus.reachable(.ethernet).localizedDescription == "Reachable via Ethernet")
        #expect(NetworkReachabilityStatus.reachable(.wifi).isReachableViaWiFi)
        #expect(!NetworkReachabilityStatus.reachable(.ethernet).isReachableViaWWAN)
        #expect(!NetworkReachabilityStatus.notReachable.isReachable)
    }

    @Test("every kind: its string, its flags, its interface kind")
    func kinds() {
        let expected: [(NetworkReachabilityStatus, String, wifi: Bool, wwan: Bool, ethernetOrWiFi: Bool)] = [
            (.unknown, "Unknown", false, false, false),
            (.notReachable, "Not Reachable", false, false, false),
            (.reachable(.ethernet), "Reachable via Ethernet", false, false, true),
            (.reachable(.wifi), "Reachable via WiFi", true, false, true),
            (.reachable(.wwan), "Reachable via WWAN", false, true, false),
            (.reachable(.loopback), "Reachable via Loopback", false, false, false),
            (.reachable(.other), "Reachable", false, false, false),
        ]
        for (status, text, wifi, wwan, ethernetOrWiFi) in expected {
            #expect(status.localizedDescription == text)
            #expect(status.description == text)
            #expect(status.isReachableViaWiFi == wifi)
            #expect(status.isReachableViaWWAN == wwan)
            #expect(status.isReachableOnEthernetOrWiFi == ethernetOrWiFi)
            #expect(status.isReachable == (status.interfaceKind != nil))
        }
        #expect(NetworkReachabilityStatus.reachable(.ethernet).isReachableViaEthernet)
        #expect(NetworkReachabilityStatus.reachable(.wwan).interfaceKind == .wwan)
        #expect(NetworkReachabilityStatus.InterfaceKind.allCases.count == 5)
    }
}
