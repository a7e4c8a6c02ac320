import Foundation
import SluiceCore
import Testing

@testable import SluiceTransport

/// Which requests go through which proxy, without a socket: the environment's variables in both cases,
/// `no_proxy` in every form curl reads, a given proxy's bypass list, and what is refused.
@Suite("Proxy routes")
struct ProxyRouteTests {
    struct Row: Sendable, CustomStringConvertible {
        let url: String
        let environment: [String: String]
        let expected: String?  // the proxy URL, or nil for direct
        var description: String { "\(url) with \(environment.keys.sorted())" }
    }

    static let rows: [Row] = [
        Row(url: "http://example.com/", environment: [:], expected: nil),
        Row(url: "http://example.com/", environment: ["http_proxy": "http://p:3128"], expected: "http://p:3128"),
        Row(url: "http://example.com/", environment: ["HTTP_PROXY": "http://P:3128"], expected: "http://P:3128"),
        // In a CGI program HTTP_PROXY may come from a request's Proxy header.
        Row(url: "http://example.com/", environment: ["HTTP_PROXY": "http://evil:1", "REQUEST_METHOD": "GET"], expected: nil),
        Row(url: "http://example.com/", environment: ["http_proxy": "http://p:1", "HTTP_PROXY": "http://q:1"], expected: "http://p:1"),
        Row(url: "https://example.com/", environment: ["http_proxy": "http://p:3128"], expected: nil),
        Row(url: "https://example.com/", environment: ["https_proxy": "http://s:3128"], expected: "http://s:3128"),
        Row(url: "https://example.com/", environment: ["HTTPS_PROXY": "socks5h://s:1080"], expected: "socks5h://s:1080"),
        Row(url: "https://example.com/", environment: ["all_proxy": "socks5://a:1080"], expected: "socks5://a:1080"),
        Row(url: "http://example.com/", environment: ["ALL_PROXY": "socks5://a:1080", "http_proxy": "http://p:1"], expected: "http://p:1"),
        Row(url: "http://example.com/", environment: ["http_proxy": "p.internal:3128"], expected: "http://p.internal:3128"),
        Row(url: "http://example.com/", environment: ["http_proxy": "http://p:1", "no_proxy": "example.com"], expected: nil),
        Row(url: "http://api.example.com/", environment: ["http_proxy": "http://p:1", "no_proxy": "example.com"], expected: nil),
        Row(url: "http://api.example.com/", environment: ["http_proxy": "http://p:1", "NO_PROXY": ".example.com"], expected: nil),
        Row(url: "http://notexample.com/", environment: ["http_proxy": "http://p:1", "no_proxy": "example.com"], expected: "http://p:1"),
        Row(url: "http://EXAMPLE.com./", environment: ["http_proxy": "http://p:1", "no_proxy": "example.COM"], expected: nil),
        Row(url: "http://example.org/", environment: ["http_proxy": "http://p:1", "no_proxy": "localhost, example.com"], expected: "http://p:1"),
        Row(url: "http://localhost/", environment: ["http_proxy": "http://p:1", "no_proxy": "localhost, example.com"], expected: nil),
        Row(url: "http://anything/", environment: ["http_proxy": "http://p:1", "no_proxy": "*"], expected: nil),
        Row(url: "http://10.1.2.3/", environment: ["http_proxy": "http://p:1", "no_proxy": "10.0.0.0/8"], expected: nil),
        Row(url: "http://11.1.2.3/", environment: ["http_proxy": "http://p:1", "no_proxy": "10.0.0.0/8"], expected: "http://p:1"),
        Row(url: "http://127.0.0.1:8080/", environment: ["http_proxy": "http://p:1", "no_proxy": "127.0.0.1"], expected: nil),
        Row(url: "http://[::1]:8080/", environment: ["http_proxy": "http://p:1", "no_proxy": "::1"], expected: nil),
        Row(url: "http://[fd00::5]/", environment: ["http_proxy": "http://p:1", "no_proxy": "fd00::/8"], expected: nil),
        Row(url: "http://[fe80::5]/", environment: ["http_proxy": "http://p:1", "no_proxy": "fd00::/8"], expected: "http://p:1"),
        // An address range never matches a name.
        Row(url: "http://host10/", environment: ["http_proxy": "http://p:1", "no_proxy": "10.0.0.0/8"], expected: "http://p:1"),
        Row(url: "http+unix://%2Ftmp%2Fa.sock/", environment: ["http_proxy": "http://p:1"], expected: nil),
    ]

    @Test("the environment's proxy for each URL", arguments: rows)
    func environment(row: Row) throws {
        let route = try ProxyRoute.route(
            for: URL(string: row.url)!, choice: .environment, environment: ProxyRoute.Environment(row.environment))
        switch route {
        case .direct: #expect(row.expected == nil)
        case .proxy(let proxy): #expect(proxy.url.absoluteString == row.expected)
        }
    }

    @Test("a given proxy: its bypass list, direct whatever the environment, and what is refused")
    func given() throws {
        let environment = ProxyRoute.Environment(["http_proxy": "http://env:1"])
        let proxy = Proxy(url: URL(string: "socks5h://s:1080")!, user: "u", password: "p", bypass: ["internal.example", "192.168.0.0/16"])
        let url = URL(string: "http://api.example.com/")!
        #expect(try ProxyRoute.route(for: url, choice: .proxy(proxy), environment: environment) == .proxy(proxy))
        #expect(try ProxyRoute.route(for: URL(string: "http://db.internal.example/")!, choice: .proxy(proxy), environment: environment) == .direct)
        #expect(try ProxyRoute.route(for: URL(string: "http://192.168.4.4/")!, choice: .proxy(proxy), environment: environment) == .direct)
        #expect(try ProxyRoute.route(for: url, choice: .direct, environment: environment) == .direct)
        for bad in ["ftp://p:21", "http:///nohost", "p.example:3128"] {
            let error = #expect(throws: SluiceError.self) {
                _ = try ProxyRoute.route(for: url, choice: .proxy(Proxy(url: URL(string: bad)!)), environment: environment)
            }
            #expect(error?.code == .invalidProxy, "\(bad)")
        }
        let unusable = #expect(throws: SluiceError.self) {
            _ = try ProxyRoute.route(for: url, choice: .environment, environment: ProxyRoute.Environment(["http_proxy": "gopher://p:70"]))
        }
        #expect(unusable?.code == .invalidProxy)
    }

    @Test("proxyURL reads and writes the proxy choice")
    func proxyURL() {
        var configuration = SessionConfiguration()
        #expect(configuration.proxy == .environment && configuration.proxyURL == nil)
        configuration.proxyURL = URL(string: "http://u:p@p:3128")!
        #expect(configuration.proxy == .proxy(Proxy(url: URL(string: "http://u:p@p:3128")!)))
        configuration.proxyURL = nil
        #expect(configuration.proxy == .environment)
    }
}
