import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("Proxy", .tags(.server), .needsServers, .serialized)
    struct ProxyTests {
        /// The forward proxy the test environment runs (nginx; credentials proxy:secret).
        static func proxy(user: String?) throws -> URL {
            let servers = try TestEnvironment.requireServers()
            guard let base = servers.values["SLUICE_PROXY_URL"].flatMap(URL.init(string:)) else {
                throw ConformanceError("SLUICE_PROXY_URL is not set; start the servers with \(ServerEnvironment.startCommand)")
            }
            guard let user else { return base }
            return URL(string: "http://\(user)@\(base.host!):\(base.port!)")!
        }

        @Test("requests go through the configured proxy with its credentials")
        func throughProxy() async throws {
            let proxy = try Self.proxy(user: "proxy:secret")
            let session = try Transport.session { $0.proxyURL = proxy }
            let result = try await session.data(for: Transport.request(.httpbin, "/headers"))
            #expect(result.response.statusCode == 200)
            let headers = try Transport.json(result.data)["headers"] as? [String: String]
            #expect(headers?["X-Sluice-Proxy"] == "1")
            #expect(headers?["Proxy-Authorization"] == nil)
        }

        @Test("a proxy that wants credentials answers 407 without them")
        func proxyAuthenticationRequired() async throws {
            let proxy = try Self.proxy(user: nil)
            let session = try Transport.session { $0.proxyURL = proxy }
            let result = try await session.data(for: Transport.request(.httpbin, "/headers"))
            #expect(result.response.statusCode == 407)
            #expect(result.response.headers["Proxy-Authenticate"] == #"Basic realm="sluice""#)
        }
    }
}
