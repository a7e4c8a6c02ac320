import Foundation
import Sluice

// Samples of docs/session-manager.md, compiled (not run: they talk to example hosts).
enum SessionManagerSamples {
    static func verbs() async throws {
        struct Item: Codable, Sendable {
            let id: Int
            let name: String
        }

        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com"))
        manager.requestSerializer = JSONRequestSerializer()

        let items = try await manager.get("items", parameters: ["page": 2], as: [Item].self).value
        let created = try await manager.post("items", parameters: ["name": "lamp"], as: Item.self).value
        _ = try await manager.put("items/\(created.id)", parameters: ["name": "desk lamp"])
        _ = try await manager.patch("items/\(created.id)", parameters: ["name": "lamp"], headers: ["If-Match": "\"v2\""])
        _ = try await manager.delete("items/\(created.id)")
        let head = try await manager.head("items")   // status checked, no body
        print(items.count, head.response.headers["ETag"] ?? "")
    }

    static func download(manager: HTTPSessionManager) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("report.pdf")
        let report = try await manager.download("reports/latest", parameters: ["format": "pdf"], to: file) { progress in
            print("\(Int(progress.fractionReceived * 100)) %")
        }
        print(report.value.path, report.response.statusCode)
    }

    static func callbacks(manager: HTTPSessionManager) {
        let task = manager.GET("items", parameters: ["page": 1], progress: nil, success: { task, value in
            print("attempts:", task.attempts, value ?? "no body")
        }, failure: { task, error in
            print(task == nil ? "not sent:" : "failed:", error.code)
        })
        task?.cancel()
    }

    static func retries() async throws {
        let tagging = Interceptor(adapt: { request, _ in
            var request = request
            try request.headers.set(name: "X-Request-ID", value: UUID().uuidString)
            return request
        })
        let resilient = HTTPSessionManager(
            baseURL: URL(string: "https://api.example.com"),
            interceptor: Interceptor(adapters: [tagging], retriers: [RetryPolicy(retryLimit: 3)]))
        let answer = try await resilient.get("flaky")
        print("took", answer.attempts, "attempts")
    }

    struct OAuthToken: AuthenticationCredential {
        let accessToken: String
        let refreshToken: String
        let expiry: Date
        var requiresRefresh: Bool { expiry < Date().addingTimeInterval(60) }
    }

    struct OAuthAuthenticator: Authenticator {
        func apply(_ credential: OAuthToken, to request: inout HTTPRequest) throws(SluiceError) {
            try request.headers.set(name: "Authorization", value: "Bearer \(credential.accessToken)")
        }

        func refresh(_ credential: OAuthToken, for session: HTTPSessionManager) async throws -> OAuthToken {
            struct Refreshed: Decodable, Sendable {
                let access_token: String
                let refresh_token: String
                let expires_in: Double
            }
            let answer = try await session.post(
                "oauth/token", parameters: ["grant_type": "refresh_token", "refresh_token": .string(credential.refreshToken)],
                as: Refreshed.self)
            return OAuthToken(
                accessToken: answer.value.access_token, refreshToken: answer.value.refresh_token,
                expiry: Date().addingTimeInterval(answer.value.expires_in))
        }

        func isRequest(_ request: HTTPRequest, authenticatedWith credential: OAuthToken) -> Bool {
            request.headers["Authorization"] == "Bearer \(credential.accessToken)"
        }
    }

    static func authentication(token: OAuthToken) -> HTTPSessionManager {
        let authenticated = HTTPSessionManager(
            baseURL: URL(string: "https://api.example.com"),
            interceptor: AuthenticationInterceptor(authenticator: OAuthAuthenticator(), credential: token))
        return authenticated
    }

    static func debugging(manager: HTTPSessionManager) throws {
        let request = try manager.request(.post, "items", parameters: ["name": "lamp"], headers: ["Authorization": "Bearer secret"])
        print(request.cURLDescription())
        // curl \
        //     -X 'POST' \
        //     -H 'Authorization: ***' \
        //     ...

        var logger = Logger(label: "weather.http")
        logger.logLevel = .debug
        let logged = HTTPSessionManager(baseURL: URL(string: "https://api.example.com"), logger: logger)
        _ = logged
    }
}
