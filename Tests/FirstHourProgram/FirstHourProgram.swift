import Foundation
import Logging
import Sluice
import SluiceXML

// A new user's first program, as docs/getting-started.md leads them to write it: every call in one
// function, the way people write their first script. It is built with the package (so the compiler must
// take it, and quickly: `make test` times its build) and run by SluiceTests against the test servers.

struct Forecast: Codable, Sendable {
    let city: String
    let temperature: Double
}

/// The latest value a progress handler saw.
final class Latest<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

struct Echo: Decodable, Sendable {
    let url: String
    let json: Forecast?
}

/// The status of `path`, from a function that cannot be async: it waits for the handler (at most
/// 30 s here, so a deadlock shows as -1 instead of a hung test).
func statusWaiting(for manager: HTTPSessionManager, _ path: String) -> Int {
    let status = Latest(-1)
    let done = DispatchSemaphore(value: 0)
    manager.GET(path, success: { task, _ in
        status.value = task.response?.statusCode ?? 0
        done.signal()
    }, failure: { task, _ in
        status.value = task?.response?.statusCode ?? 0
        done.signal()
    })
    _ = done.wait(timeout: .now() + 30)
    return status.value
}

@main
enum FirstHourProgram {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let base = URL(string: environment["SLUICE_HTTPBIN_URL"] ?? "http://127.0.0.1:1")!
        let files = URL(string: environment["SLUICE_HTTP_URL"] ?? "http://127.0.0.1:1")!
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-first-hour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var lines: [String] = []

        // A GET decoded into a type, and the same without a type.
        let manager = HTTPSessionManager(baseURL: base)
        let decoded = try await manager.get("get", parameters: ["city": "Lyon", "days": 3], as: [String: Parameters].self)
        lines.append("get \(decoded.response.statusCode) \(decoded.value.keys.sorted().joined(separator: ","))")
        let document = try await manager.get("get", parameters: ["city": "Lyon"])
        lines.append("untyped \(document.parameters?["args"]?["city"] ?? .null)")

        // JSON in, JSON out.
        manager.requestSerializer = JSONRequestSerializer()
        let posted = try await manager.post("anything", parameters: ["city": "Lyon", "temperature": 21.5], as: Echo.self)
        lines.append("post \(posted.value.json?.city ?? "?") \(posted.value.json?.temperature ?? 0)")
        let put = try await manager.put("put", parameters: ["id": 7, "tags": ["a", "b"], "draft": false])
        let patch = try await manager.patch("patch", parameters: ["name": "new"])
        let delete = try await manager.delete("delete")
        lines.append("put \(put.response.statusCode) patch \(patch.response.statusCode) delete \(delete.response.statusCode)")
        manager.requestSerializer = HTTPRequestSerializer()

        // A multipart upload with progress, from a file written first.
        let photo = scratch.appendingPathComponent("photo.bin")
        try Data(repeating: 0x5A, count: 256 * 1024).write(to: photo)
        let sent = Latest(0.0)
        let upload = try await manager.post(
            "post", parameters: ["album": "Holidays", "public": true],
            constructingBody: { form in
                try form.appendPart(fileURL: photo, name: "photo")
                form.appendPart(formData: Data("a caption".utf8), name: "caption")
            },
            progress: { progress in sent.value = max(sent.value, progress.fractionSent) })
        lines.append("upload \(upload.response.statusCode) \(sent.value)")

        // A download with progress, into place.
        let target = scratch.appendingPathComponent("one-megabyte.bin")
        let received = Latest<Int64>(0)
        let downloads = HTTPSessionManager(baseURL: files)
        let download = try await downloads.download("files/1m.bin", to: target) { progress in
            received.value = progress.bytesReceived
        }
        let size = try FileManager.default.attributesOfItem(atPath: download.value.path)[.size] as? Int ?? 0
        lines.append("download \(size) \(received.value)")

        // A stream, chunk by chunk.
        let session = SessionManager()
        let (stream, head) = try await session.bytes(for: HTTPRequest(urlString: base.absoluteString + "/stream-bytes/65536"))
        var streamed = 0
        for try await chunk in stream { streamed += chunk.count }
        lines.append("stream \(head.statusCode) \(streamed)")

        // XML through the registry's plugin.
        let xml = HTTPSessionManager(baseURL: base)
        xml.responseSerializer = XMLResponseSerializer()
        let tree = try await xml.get("xml")
        lines.append("xml \(tree.response.statusCode) \((tree.value as? XMLTree)?.root.name.localName ?? "?")")

        // A 404 with its body, and a typed error's code. Swift 6.3's compiler crashes (or runs for
        // minutes) on a `catch where` that leaves a typed error uncaught in a function that throws
        // `any Error`; the last `catch` makes the clauses exhaustive (docs/errors.md).
        do {
            _ = try await manager.get("status/404", as: Forecast.self)
        } catch where error.code == .unacceptableStatusCode {
            lines.append("404 \(error.response?.statusCode ?? 0) \(error.body?.count ?? -1)")
        } catch {
            throw error
        }
        do {
            _ = try await manager.get("http://[bad")
        } catch {
            lines.append("bad URL \(error.code)")
        }

        // Retries with a policy, and the attempts they took.
        let retrying = HTTPSessionManager(
            baseURL: base, interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(5)))
        do {
            _ = try await retrying.get("status/503")
        } catch {
            lines.append("retried \(error.attempts ?? 0) \(error.response?.statusCode ?? 0)")
        }

        // Headers, authentication, the completion-handler API and a logger.
        var headers = HTTPHeaders()
        try headers.set(name: "X-Client", value: "first-hour")
        let withHeaders = try await manager.get("headers", headers: headers)
        lines.append("headers \(withHeaders.parameters?["headers"]?["X-Client"] ?? .null)")
        let basic = HTTPRequestSerializer()
        basic.setAuthorizationHeader(username: "user", password: "passwd")
        manager.requestSerializer = basic
        let authorized = try await manager.get("basic-auth/user/passwd")
        lines.append("basic \(authorized.response.statusCode)")
        manager.requestSerializer = HTTPRequestSerializer()
        let viaCallback: Int = try await withCheckedThrowingContinuation { continuation in
            manager.GET("get", success: { task, _ in continuation.resume(returning: task.response?.statusCode ?? 0) },
                        failure: { _, error in continuation.resume(throwing: error) })
        }
        lines.append("callback \(viaCallback)")
        // A non-async function that waits for its handler, called from this `@main async` program (on
        // the main thread): with handlers on the main queue it would wait forever.
        lines.append("blocking \(statusWaiting(for: manager, "get"))")
        let logged = HTTPSessionManager(baseURL: base, logger: HTTPSessionManager.silentLogger)
        let quiet = try await logged.head("get")
        lines.append("head \(quiet.response.statusCode) \(quiet.metrics.transactions.count)")

        print(lines.joined(separator: "\n"))
    }
}
