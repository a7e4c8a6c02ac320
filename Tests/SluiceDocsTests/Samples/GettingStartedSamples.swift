import Foundation
import Synchronization
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

    static func tokenYouHave(token: String) async throws {
        let api = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"), interceptor: .authorization(bearerToken: token))
        let me = try await api.get("me")
        print(me.response.statusCode, me.attempts)   // 200 2: refused once, then answered
    }

    static func continuation(manager: HTTPSessionManager) async throws {
        let status: Int = try await withCheckedThrowingContinuation { continuation in
            manager.GET("status/200", success: { task, _ in continuation.resume(returning: task.response?.statusCode ?? 0) },
                        failure: { _, error in continuation.resume(throwing: error) })
        }
        print(status)
    }

    static func resumableDownload() async throws {
        let session = SessionManager()
        let request = HTTPRequest(url: "https://downloads.example.com/big.iso")
        let target = URL(fileURLWithPath: "/srv/downloads/big.iso")
        let started = Answer<SessionTask>()
        let stopped = Answer<ResumeData>()
        do {
            _ = try await session.download(for: request, to: { _, _ in target }, didCreateTask: { started.set($0) }) { progress in
                // Stop after 8 MB, keeping what arrived.
                guard progress.bytesReceived > 8 << 20, stopped.current == nil, let task = started.current else { return }
                if let resumeData = session.cancel(task, producingResumeData: true) { stopped.set(resumeData) }
            }
        } catch where error.code == .cancelled {
            print("stopped; resume data: \(stopped.current != nil)")   // keep it (JSONEncoder) to go on later
        } catch {
            throw error
        }
        if let resumeData = stopped.current {
            let finished = try await session.download(resumingWith: resumeData, to: { _, _ in target }) { progress in
                print(progress.bytesReceived)   // counts from the bytes already on disk
            }
            print(finished.resumption ?? .continued(fromByte: 0))   // continued(fromByte: 8…) with a 206
        }
    }
}

/// A value a completion handler hands to the code waiting for it.
final class Answer<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)   // import Synchronization
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    var current: Value? { value.withLock { $0 } }
}

/// The status of `path`, for a caller that cannot be async.
func status(of path: String, on manager: HTTPSessionManager) -> Int? {
    let answer = Answer<Int>()
    let done = DispatchSemaphore(value: 0)
    manager.GET(path, success: { task, _ in
        answer.set(task.response?.statusCode ?? 0)
        done.signal()
    }, failure: { task, _ in
        answer.set(task?.response?.statusCode ?? 0)
        done.signal()
    })
    done.wait()
    return answer.current
}
