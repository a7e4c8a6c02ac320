import Foundation
import SluiceCookies
import SluiceTestSupport
import SluiceTransport
import Testing

/// A CookieStore in place of libcurl's engine, against httpbin: each hop's cookies, what a user reads, sets
/// and deletes, a store shared by two sessions, one saved and loaded, and cookies that stay with their host.
@Suite("CookieStore in a session, against httpbin", .tags(.server), .needsServers)
struct SessionCookieStoreTests {
    struct Echo: Decodable { let cookies: [String: String] }

    static func session(_ store: CookieStore) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.cookieStorage = store
        return SessionManager(configuration: configuration)
    }

    static func echoed(_ session: SessionManager, _ base: URL) async throws -> [String: String] {
        let answer = try await session.data(for: HTTPRequest(url: URL(string: base.absoluteString + "/cookies")!))
        return try JSONDecoder().decode(Echo.self, from: answer.data).cookies
    }

    @Test("a cookie set by a redirect's answer is sent on the next hop, kept in the store, readable and deletable")
    func setAndSent() async throws {
        let base = try TestEnvironment.url(for: .httpbin)
        let store = CookieStore()
        let session = Self.session(store)
        defer { session.invalidate(cancelingTasks: true) }
        // /cookies/set answers 302 with Set-Cookie; the redirect to /cookies carries the cookie.
        let answer = try await session.data(for: HTTPRequest(url: URL(string: base.absoluteString + "/cookies/set?flavor=oat")!))
        #expect(try JSONDecoder().decode(Echo.self, from: answer.data).cookies == ["flavor": "oat"])
        let kept = store.cookies(forDomain: base.host!)
        #expect(kept.map(\.name) == ["flavor"] && kept.first?.hostOnly == true && kept.first?.path == "/")

        store.set(HTTPCookie(name: "theme", value: "dark", domain: base.host!, hostOnly: true, path: "/"))
        #expect(try await Self.echoed(session, base) == ["flavor": "oat", "theme": "dark"])
        #expect(store.delete(name: "flavor", domain: base.host!, path: "/"))
        #expect(try await Self.echoed(session, base) == ["theme": "dark"])

        var without = HTTPRequest(url: URL(string: base.absoluteString + "/cookies")!)
        without.shouldHandleCookies = false
        #expect(try JSONDecoder().decode(Echo.self, from: try await session.data(for: without).data).cookies == [:])
    }

    @Test("two sessions given one store share its cookies; a store saved to a file and loaded sends them again")
    func sharedAndSaved() async throws {
        let base = try TestEnvironment.url(for: .httpbin)
        let store = CookieStore()
        let first = Self.session(store)
        let second = Self.session(store)
        defer {
            first.invalidate(cancelingTasks: true)
            second.invalidate(cancelingTasks: true)
        }
        // A persistent cookie (Max-Age), so it is saved.
        let setting = base.absoluteString + "/response-headers?Set-Cookie=token%3Dabc%3B%20Max-Age%3D3600%3B%20Path%3D%2F"
        _ = try await first.data(for: HTTPRequest(url: URL(string: setting)!))
        #expect(try await Self.echoed(second, base) == ["token": "abc"])

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cookies-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try store.save(to: file)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\ttoken\tabc"))
        let loaded = CookieStore()
        try loaded.load(from: file)
        let third = Self.session(loaded)
        defer { third.invalidate(cancelingTasks: true) }
        #expect(try await Self.echoed(third, base) == ["token": "abc"])
    }

    @Test("a host's cookies never go to another host (127.0.0.1 and localhost are two hosts)")
    func stayWithTheirHost() async throws {
        let base = try TestEnvironment.url(for: .httpbin)
        let other = URL(string: "http://localhost:\(base.port!)")!
        let store = CookieStore()
        let session = Self.session(store)
        defer { session.invalidate(cancelingTasks: true) }
        _ = try await session.data(for: HTTPRequest(url: URL(string: base.absoluteString + "/cookies/set?here=1")!))
        #expect(try await Self.echoed(session, base) == ["here": "1"])
        #expect(try await Self.echoed(session, other) == [:])
    }
}
