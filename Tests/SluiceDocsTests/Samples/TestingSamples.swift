import Foundation
import Sluice
import SluiceTesting
import Testing

// The samples of docs/testing.md, compiled (and their tests run).
struct Profile: Decodable, Sendable {
    let id: Int
    let name: String
}

/// The code under test: a user's own client.
struct ProfileClient {
    let manager: HTTPSessionManager

    init(configuration: SessionConfiguration) {
        manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1/")!, configuration: configuration)
    }

    func profile(id: Int) async throws(SluiceError) -> Profile {
        try await manager.get("users/\(id)", as: Profile.self).value
    }
}

@Test func profileIsDecoded() async throws {
    let stubs = HTTPStubs()
    stubs.stub(.get("https://api.example.com/v1/users/7"), .json(#"{"id": 7, "name": "Ada"}"#))
    let client = ProfileClient(configuration: stubs.configuration())

    let profile = try await client.profile(id: 7)

    #expect(profile.name == "Ada")
    #expect(stubs.requests.map(\.description) == ["GET https://api.example.com/v1/users/7"])
}

func matcherSamples(_ stubs: HTTPStubs) {
    stubs.stub(.get("https://api.example.com/v1/items?page=2"), .json("[]"))
    stubs.stub(.method(.get) && .urlPrefix("https://cdn.example.com/"), .status(200, body: Data("asset".utf8)))
    stubs.stub(.urlMatching(#"https://api\.example\.com/v1/users/\d+"#), .status(404))
    stubs.stub(.path("/v1/search") && .query(["q": "swift linux"]), .json(#"{"hits": 3}"#))
    stubs.stub(.post("https://api.example.com/v1/items") && .header("Authorization"), .status(201))
    stubs.stub(.put("https://api.example.com/v1/items/1") && .jsonBody(#"{"done": true}"#), .status(204))
    stubs.stub(.matching("a request with a trace header") { $0.headers.contains("traceparent") }, .status(200))
}

func responseSamples(_ stubs: HTTPStubs, fixture: URL) {
    stubs.stub(.get("https://api.example.com/v1/report"), .file(fixture, headers: ["Content-Type": "application/pdf"]))
    let lines = (1...5).map { Data("event \($0)\n".utf8) }
    stubs.stub(.get("https://api.example.com/v1/feed"), .chunks(lines, every: .milliseconds(100)))
    stubs.stub(.get("https://api.example.com/v1/slow"), .json("{}").delayed(by: .seconds(2)))
    stubs.stub(.get("https://api.example.com/v1/offline"), .failure(.cannotConnect))
    stubs.stub(.get("https://api.example.com/v1/big"), .failure(.connectionLost, after: Data(count: 65_536), headers: ["Content-Length": "1048576"]))
}

@Test func retriedAfterServiceUnavailable() async throws {
    let stubs = HTTPStubs()
    let items = stubs.stub(.get("https://api.example.com/v1/items"), sequence: [.status(503), .json("[]")])
    let manager = HTTPSessionManager(
        configuration: stubs.configuration(), interceptor: RetryPolicy(exponentialBackoffScale: .milliseconds(1)))

    let response = try await manager.get("https://api.example.com/v1/items")

    #expect(response.attempts == 2)
    #expect(stubs.calls(to: items) == 2)
}

func sequenceWithTimes(_ stubs: HTTPStubs) {
    stubs.stub(.get("https://api.example.com/v1/token"), .status(500), times: 1)  // the first request
    stubs.stub(.get("https://api.example.com/v1/token"), .json(#"{"token": "t"}"#))  // every one after it
}

func unmatchedSample(_ session: SessionManager) async {
    do {
        _ = try await session.data(for: HTTPRequest(url: URL(string: "https://api.example.com/v1/users/8")!))
    } catch {
        // error.code == .noMatchingStub; error.message:
        // no stub matches GET https://api.example.com/v1/users/8 (2 registered): the closest is stub 1
        // (method is GET and URL is https://api.example.com/v1/users/7), and the request misses
        // URL is https://api.example.com/v1/users/7 (the request has URL https://api.example.com/v1/users/8)
        print(error.message)
    }
}

func passThroughSample() -> SessionConfiguration {
    let stubs = HTTPStubs(unmatchedRequests: .passThrough)
    stubs.stub(.urlPrefix("https://flags.example.com/"), .json(#"{"newCheckout": true}"#))
    return stubs.configuration()  // everything else goes to the network
}

func stubsWithTheSessionsSettings() -> SessionManager {
    var configuration = SessionConfiguration()
    configuration.idleTimeout = 5
    let stubs = HTTPStubs(idleTimeout: .seconds(5))  // the same timeout for stubs that stall
    return SessionManager(configuration: stubs.configuration(configuration))
}
