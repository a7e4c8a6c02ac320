import Foundation
import Sluice

/// A user's client of a weather API: what a team writes on top of Sluice, and tests with stubs.
public struct WeatherClient: Sendable {
    /// A forecast for one city.
    public struct Forecast: Codable, Sendable, Equatable {
        public let city: String
        public let celsius: Double
    }

    /// A report a user sends.
    public struct Report: Codable, Sendable, Equatable {
        public let city: String
        public let celsius: Double

        public init(city: String, celsius: Double) {
            self.city = city
            self.celsius = celsius
        }
    }

    let manager: HTTPSessionManager

    /// A client of the API at `baseURL`, sending through a session made with `configuration`; requests
    /// that fail with 5xx or a connection error are retried twice, and every request carries `apiKey`.
    public init(baseURL: URL, apiKey: String, configuration: SessionConfiguration = .default) {
        let key = Interceptor(adapt: { request, _ in
            var request = request
            try request.headers.set(name: "X-API-Key", value: apiKey)
            return request
        })
        let retry = RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(1))
        manager = HTTPSessionManager(
            baseURL: baseURL, configuration: configuration, interceptor: Interceptor(interceptors: [key, retry]))
        manager.requestSerializer = JSONRequestSerializer()
    }

    /// Today's forecast for `city`.
    public func forecast(for city: String) async throws(SluiceError) -> Forecast {
        try await manager.get("forecast", parameters: ["city": .string(city)], as: Forecast.self).value
    }

    /// Sends `report`; the server answers 201.
    public func send(_ report: Report) async throws(SluiceError) {
        _ = try await manager.post("reports", parameters: ["city": .string(report.city), "celsius": .double(report.celsius)])
    }

    /// The radar image for `city`, downloaded into `file`.
    public func radar(for city: String, into file: URL) async throws(SluiceError) -> URL {
        try await manager.download("radar/\(city)", to: file).value
    }
}
