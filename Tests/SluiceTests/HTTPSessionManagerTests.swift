import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// AFNetworking's session-manager tests, against httpbin.
@Suite("HTTPSessionManager", .serialized)
struct HTTPSessionManagerTests {
    @Test("a base URL with a path gets a trailing slash; relative paths resolve under it")
    func baseURL() throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com/v1"))
        #expect(manager.baseURL?.absoluteString == "https://example.com/v1/")
        #expect(try manager.request(.get, "users").url.absoluteString == "https://example.com/v1/users")
        #expect(try manager.request(.get, "/root").url.absoluteString == "https://example.com/root")
        #expect(try manager.request(.get, "https://other.example/x").url.absoluteString == "https://other.example/x")
        #expect(HTTPSessionManager(baseURL: URL(string: "https://example.com")).baseURL?.absoluteString == "https://example.com")
        #expect(HTTPSessionManager(baseURL: URL(string: "https://example.com/v1/")).baseURL?.absoluteString == "https://example.com/v1/")
        #expect(HTTPSessionManager().baseURL == nil)
        #expect(manager.requestSerializer is HTTPRequestSerializer)
        #expect(manager.responseSerializer is JSONResponseSerializer)
        for plugin in ["gzip", "xml", "plist"] { #expect(manager.registry.plugin(named: plugin) != nil, "\(plugin)") }
        #expect(manager.registry.responseSerializer(for: MediaType("application/atom+xml")!) is XMLResponseSerializer)
    }

    @Test("every verb reaches httpbin with its parameters and the overriding header", .tags(.server), .needsServers, arguments: [
        ("GET", "get"), ("POST", "post"), ("PUT", "put"), ("PATCH", "patch"), ("DELETE", "delete"),
    ])
    func verbs(method: String, path: String) async throws {
        let manager = try Support.manager()
        let headers: HTTPHeaders = ["User-Agent": "Overridden/1.0", "X-Per-Request": "yes"]
        let parameters: Parameters = ["key": "value", "n": 3]
        let response: HTTPSessionResponse<(any Sendable)?>
        switch method {
        case "GET": response = try await manager.get(path, parameters: parameters, headers: headers)
        case "POST": response = try await manager.post(path, parameters: parameters, headers: headers)
        case "PUT": response = try await manager.put(path, parameters: parameters, headers: headers)
        case "PATCH": response = try await manager.patch(path, parameters: parameters, headers: headers)
        default: response = try await manager.delete(path, parameters: parameters, headers: headers)
        }
        #expect(response.response.statusCode == 200)
        #expect(response.request.method.rawValue == method)
        let echo = try Support.json(response.value)
        let sent = ["GET", "DELETE"].contains(method) ? Support.dictionary(echo["args"]) : Support.dictionary(echo["form"])
        #expect(Support.string(sent["key"]) == "value")
        #expect(Support.string(sent["n"]) == "3")
        let echoedHeaders = Support.dictionary(echo["headers"])
        #expect(Support.string(echoedHeaders["User-Agent"]) == "Overridden/1.0")
        #expect(Support.string(echoedHeaders["X-Per-Request"]) == "yes")
        #expect(response.attempts == 1)
    }

    @Test("the untyped verbs' JSON value is read as Parameters without a cast", .tags(.server), .needsServers)
    func parametersWithoutCast() async throws {
        let manager = try Support.manager()
        let response = try await manager.get("get", parameters: ["q": "lamp"])
        #expect(response.parameters?["args"]?["q"] == "lamp")
        let noContent = try await manager.get("status/204")
        #expect(noContent.parameters == nil)
    }

    @Test("HEAD yields no body; 204 gives no object and no error; 404 fails with the response", .tags(.server), .needsServers)
    func statuses() async throws {
        let manager = try Support.manager()
        let head = try await manager.head("get")
        #expect(head.response.statusCode == 200)
        #expect(head.data.isEmpty)
        let noContent = try await manager.get("status/204")
        #expect(noContent.value == nil)
        let error = await #expect(throws: SluiceError.self) { try await manager.get("status/404") }
        #expect(error?.code == .unacceptableStatusCode)
        #expect(error?.response?.statusCode == 404)
        let headError = await #expect(throws: SluiceError.self) { try await manager.head("status/500") }
        #expect(headError?.response?.statusCode == 500)
    }

    @Test("basic and hidden basic authentication; a redirect is followed", .tags(.server), .needsServers)
    func authenticationAndRedirect() async throws {
        let manager = try Support.manager()
        let serializer = try #require(manager.requestSerializer as? HTTPRequestSerializer)
        serializer.setAuthorizationHeader(username: "user", password: "password")
        let basic = try Support.json(try await manager.get("basic-auth/user/password").value)
        #expect(basic["authenticated"] == .bool(true))
        let hidden = try Support.json(try await manager.get("hidden-basic-auth/user/password").value)
        #expect(Support.string(hidden["user"]) == "user")
        serializer.clearAuthorizationHeader()
        let refused = await #expect(throws: SluiceError.self) { try await manager.get("hidden-basic-auth/user/password") }
        #expect(refused?.response?.statusCode == 404)

        let redirected = try await manager.get("redirect/2")
        #expect(redirected.response.statusCode == 200)
        #expect(redirected.metrics.redirectCount == 2)
        #expect(redirected.request.url.path == "/get")
    }

    @Test("Decodable responses, through the registry", .tags(.server), .needsServers)
    func decodable() async throws {
        struct Slideshow: Decodable, Sendable {
            struct Inner: Decodable, Sendable {
                let title: String
                let slides: [Slide]
            }
            struct Slide: Decodable, Sendable { let title: String }
            let slideshow: Inner
        }
        let manager = try Support.manager()
        let show = try await manager.get("json", as: Slideshow.self).value
        #expect(show.slideshow.title == "Sample Slide Show")
        #expect(show.slideshow.slides.count == 2)
        struct Echo: Decodable, Sendable { let form: [String: String] }
        let posted = try await manager.post("post", parameters: ["a": "b"], as: Echo.self)
        #expect(posted.value.form == ["a": "b"])
        let mismatch = await #expect(throws: SluiceError.self) { try await manager.get("json", as: Echo.self) }
        #expect(mismatch?.code == .decodingFailed)
    }

    @Test("the bundled plugins serve the manager: XML from httpbin /xml, gzip from /gzip", .tags(.server), .needsServers)
    func bundledPlugins() async throws {
        let manager = try Support.manager()
        let xml = try await manager.send(try manager.request(.get, "xml"), serializer: XMLResponseSerializer())
        let titles = try #require(xml.value).xpath("//slide/title").strings
        #expect(titles.contains("Overview"))
        let gzip = try Support.json(try await manager.get("gzip").value)
        #expect(gzip["gzipped"] == .bool(true))
    }

    @Test("download progress of a GET and upload progress of a multipart POST reach 1.0", .tags(.server), .needsServers)
    func progress() async throws {
        let manager = try Support.manager()
        let downloads = Locked<[TransferProgress]>([])
        let bytes = try manager.request(.get, "stream-bytes/100000?chunk_size=8192&seed=1")
        let download = try await manager.send(bytes, serializer: HTTPResponseSerializer(), progress: { progress in
            downloads.withLock { $0.append(progress) }
        })
        #expect(download.data.count == 100_000)
        let lastDownload = try #require(downloads.withLock { $0.last })
        #expect(lastDownload.fractionReceived == 1.0)

        let uploads = Locked<[TransferProgress]>([])
        let payload = Data(repeating: 42, count: 300_000)
        let upload = try await manager.post(
            "post", parameters: ["field": "value"],
            constructingBody: { form in
                try form.appendPart(data: payload, name: "file", fileName: "blob.bin", mimeType: "application/octet-stream")
            },
            progress: { progress in uploads.withLock { $0.append(progress) } })
        let echo = try Support.json(upload.value)
        #expect(Support.string(Support.dictionary(echo["form"])["field"]) == "value")
        #expect(Support.dictionary(echo["files"])["file"] != nil)
        let lastUpload = try #require(uploads.withLock { $0.last })
        #expect(lastUpload.fractionSent == 1.0)
        #expect(lastUpload.bytesSent > 300_000)
    }

    @Test("completion handlers: success and failure on the completion queue; a bad request gives no task", .tags(.server), .needsServers)
    func callbacks() async throws {
        let manager = try Support.manager()
        let queueKey = DispatchSpecificKey<String>()
        manager.completionQueue.setSpecific(key: queueKey, value: "completion")
        let outcome: (Bool, String?, Int?) = await withCheckedContinuation { continuation in
            let task = manager.GET("get", parameters: ["q": "1"], success: { task, value in
                let args = (try? Support.json(value)).map { Support.dictionary($0["args"]) }
                continuation.resume(returning: (task.isCompleted, DispatchQueue.getSpecific(key: queueKey), args?.count))
            }, failure: { _, error in
                Issue.record("unexpected failure \(error)")
                continuation.resume(returning: (false, nil, nil))
            })
            #expect(task != nil)
        }
        #expect(outcome.0)
        #expect(outcome.1 == "completion")
        #expect(outcome.2 == 1)

        let failed: (Bool, SluiceError.Code?) = await withCheckedContinuation { continuation in
            let task = manager.GET("status/418", success: { _, _ in
                continuation.resume(returning: (false, nil))
            }, failure: { task, error in
                continuation.resume(returning: (task != nil, error.code))
            })
            #expect(task != nil)
        }
        #expect(failed.0)
        #expect(failed.1 == .unacceptableStatusCode)

        let refused: (Bool, SluiceError.Code?) = await withCheckedContinuation { continuation in
            let task = manager.POST("http://[not a url", parameters: ["a": "b"], success: { _, _ in
                continuation.resume(returning: (false, nil))
            }, failure: { task, error in
                continuation.resume(returning: (task == nil, error.code))
            })
            #expect(task == nil)
        }
        #expect(refused.0)
        #expect(refused.1 == .invalidURL)

        let headDone: Bool = await withCheckedContinuation { continuation in
            manager.HEAD("get", success: { _ in continuation.resume(returning: true) }, failure: { _, _ in continuation.resume(returning: false) })
        }
        #expect(headDone)
    }

    @Test("cancelling a callback request ends it with the cancellation error", .tags(.server), .needsServers)
    func cancelCallback() async throws {
        let manager = try Support.manager()
        let code: SluiceError.Code? = await withCheckedContinuation { continuation in
            let task = manager.GET("delay/5", success: { _, _ in continuation.resume(returning: nil) }, failure: { _, error in
                continuation.resume(returning: error.code)
            })
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { task?.cancel() }
        }
        #expect(code == .cancelled)
    }

    @Test("reachability is there and never holds a request back", .tags(.server), .needsServers)
    func reachability() async throws {
        let manager = try Support.manager()
        #expect(manager.reachabilityManager === NetworkReachabilityManager.shared)
        #expect(try await manager.get("get").response.statusCode == 200)
    }
}
