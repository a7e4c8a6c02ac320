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
}
