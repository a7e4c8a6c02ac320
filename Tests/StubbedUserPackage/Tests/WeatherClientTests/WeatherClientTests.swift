import Foundation
import SluiceTesting
import Testing
import WeatherClient

/// A user's tests of their own client, against stubs: no server, no network.
@Suite("WeatherClient against stubs")
struct WeatherClientTests {
    static let base = URL(string: "https://weather.example.test/v2/")!

    static func client(_ stubs: HTTPStubs) -> WeatherClient {
        WeatherClient(baseURL: base, apiKey: "secret", configuration: stubs.configuration())
    }

    @Test("a forecast is asked for with the city and the key, and decoded")
    func forecast() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.get("https://weather.example.test/v2/forecast?city=Oslo"), .json(#"{"city": "Oslo", "celsius": -3.5}"#))
        let forecast = try await Self.client(stubs).forecast(for: "Oslo")
        #expect(forecast.city == "Oslo" && forecast.celsius == -3.5)
        #expect(stubs.requests.map { $0.headers["X-API-Key"] } == ["secret"])
    }

    @Test("a 503, then an answer: the client retries")
    func retries() async throws {
        let stubs = HTTPStubs()
        let forecast = stubs.stub(
            .path("/v2/forecast") && .query(["city": "Lima"]),
            sequence: [.status(503), .json(#"{"city": "Lima", "celsius": 19}"#)])
        #expect(try await Self.client(stubs).forecast(for: "Lima").celsius == 19)
        #expect(stubs.calls(to: forecast) == 2)
    }

    @Test("a report is sent as JSON")
    func report() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.post("https://weather.example.test/v2/reports") && .jsonBody(#"{"city": "Quito", "celsius": 14.5}"#), .status(201))
        try await Self.client(stubs).send(WeatherClient.Report(city: "Quito", celsius: 14.5))
        #expect(stubs.requests.first?.headers["Content-Type"]?.hasPrefix("application/json") == true)
    }

    @Test("the radar image is downloaded into the file asked for")
    func radar() async throws {
        let stubs = HTTPStubs()
        let image = Data((0..<50_000).map { UInt8($0 % 251) })
        stubs.stub(.get("https://weather.example.test/v2/radar/Oslo"), .status(200, headers: ["Content-Type": "image/png"], body: image))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("radar-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try await Self.client(stubs).radar(for: "Oslo", into: file) == file)
        #expect(try Data(contentsOf: file) == image)
    }

    @Test("a lost connection surfaces as the typed error after the retries")
    func connectionLost() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.any, .failure(.connectionLost))
        let error = await #expect(throws: SluiceError.self) { try await Self.client(stubs).forecast(for: "Oslo") }
        #expect(error?.code == .connectionLost)
        #expect(stubs.requests.count == 3)
    }

    @Test("a request the tests did not expect fails, naming the closest stub")
    func unexpected() async throws {
        let stubs = HTTPStubs()
        stubs.stub(.get("https://weather.example.test/v2/forecast?city=Oslo"), .json("{}"))
        let error = await #expect(throws: SluiceError.self) { try await Self.client(stubs).forecast(for: "Bergen") }
        #expect(error?.code == .noMatchingStub)
        #expect(error?.message.contains("city=Oslo") == true)
    }
}
