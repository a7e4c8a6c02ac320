import Foundation
import Sluice  // alone: `Logger` comes with it (a user's target declares only the Sluice product)

// Samples of docs/getting-started.md, compiled (not run: they talk to example hosts).
enum GettingStartedSamples {
    static func firstGET() async throws {
        struct Forecast: Decodable, Sendable {
            let city: String
            let temperature: Double
        }

        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"))
        let forecast = try await manager.get("forecast", parameters: ["city": "Lyon"], as: Forecast.self)
        print(forecast.value.city, forecast.value.temperature, forecast.metrics.duration)

        let document = try await manager.get("forecast", parameters: ["city": "Lyon"])
        print(document.parameters?["temperature"] ?? .null)   // no cast: `value` holds the same as `Any`

        do {
            _ = try await manager.get("forecast", parameters: ["city": "Atlantis"], as: Forecast.self)
        } catch where error.code == .unacceptableStatusCode {
            print(error.response?.statusCode ?? 0, String(decoding: error.body ?? Data(), as: UTF8.self))
        } catch {
            throw error
        }
    }

    static func multipartUpload(manager: HTTPSessionManager) async throws {
        let upload = try await manager.post(
            "photos", parameters: ["album": "Holidays"],
            constructingBody: { form in
                try form.appendPart(fileURL: URL(fileURLWithPath: "/srv/photos/beach.jpg"), name: "photo")
            },
            progress: { progress in print("sent \(Int(progress.fractionSent * 100))%") })
        print(upload.response.statusCode)
    }

    static func logging() -> HTTPSessionManager {
        let logged = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"), logger: Logger(label: "sluice.http"))
        return logged
    }
}
