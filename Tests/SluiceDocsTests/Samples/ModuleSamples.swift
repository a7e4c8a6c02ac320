import Foundation
import Sluice

// Samples of README.md, docs/errors.md, docs/response-serialization.md, docs/transport.md and
// docs/reachability.md, compiled (not run: they talk to example hosts or watch the network).
enum ModuleSamples {
    static func readmeFirstRequest() async throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.request(method: .get, urlString: "https://example.com/search",
                                             parameters: ["q": "sluice", "page": 2])
        let session = SessionManager()
        let response = try await session.data(for: request)
        print(response.response.statusCode, String(decoding: response.data, as: UTF8.self))
    }

    static func errors(untrustedInput: String) throws(SluiceError) {
        do {
            var headers = HTTPHeaders()
            try headers.add(name: "X-Token", value: untrustedInput)
        } catch where error.code == .invalidHeaderValue {
            print("refused:", error.message)
        }
    }

    static func exhaustiveCatch(manager: HTTPSessionManager) async throws {
        struct Forecast: Decodable, Sendable { let city: String }
        var lines: [String] = []
        do {
            _ = try await manager.get("forecast", as: Forecast.self)
        } catch where error.code == .unacceptableStatusCode {
            lines.append("refused: \(error.response?.statusCode ?? 0)")
        } catch {
            throw error
        }
        print(lines)
    }

    static func errorBodies(manager: HTTPSessionManager) async {
        do {
            _ = try await manager.get("orders/42")
        } catch {
            if let body = error.body { print(String(decoding: body, as: UTF8.self)) }
        }
    }

    struct User: Decodable, Sendable { let name: String }

    static func responseSerialization(session: SessionManager, request: HTTPRequest) async throws {
        let response = try await session.data(for: request)
        do {
            let user = try DecodableResponseSerializer<User>().serialize(request: request, response: response.response,
                                                                         body: response.data)
            print(user.name)
        } catch {
            // Validation errors carry the response and the body; a JSON error document is decoded for you.
            print(error.code, error.response?.statusCode ?? 0, error.decodedBody ?? "")
        }
    }

    static func handle(_ chunk: Data) {}

    static func transport() async throws {
        var configuration = SessionConfiguration()
        configuration.registry = try SerializerRegistry(plugins: [GzipPlugin()])   // Accept-Encoding: gzip, deflate
        let session = SessionManager(configuration: configuration)

        // Data
        let response = try await session.data(for: HTTPRequest(url: "https://example.com/items"))

        // Upload from bytes, a file, or a BodyStream pulled while it is sent
        let upload = try await session.upload(for: HTTPRequest(url: "https://example.com/upload", method: .put),
                                              from: .file(path: "/var/backups/db.tar"))

        // Download to a file, moved atomically where the closure says; no partial file on failure
        let download = try await session.download(for: HTTPRequest(url: "https://example.com/big.iso")) { _, _ in
            URL(fileURLWithPath: "/srv/big.iso")
        }

        // Streaming with back-pressure: the transfer pauses while the consumer is behind
        let (stream, head) = try await session.bytes(for: HTTPRequest(url: "https://example.com/events"))
        for try await chunk in stream { handle(chunk) }
        _ = (response, upload, download, head)
    }

    static func transportSeam() async throws {
        let transport: any HTTPTransport = SessionManager()
        let exchange = try await transport.exchange(HTTPRequest(url: "https://example.com/items"), receiving: .memory)
        print(exchange.response.statusCode, exchange.body.data?.count ?? 0, exchange.metrics?.redirectCount ?? 0)
    }

    static func engineExecutor() async throws -> [Data] {
        let session = SessionManager()
        let pages = try await withTaskExecutorPreference(session.taskExecutor) {
            var pages: [Data] = []
            for page in 1...10 {
                pages.append(try await session.data(for: HTTPRequest(urlString: "https://example.com/items?page=\(page)")).data)
            }
            return pages
        }
        return pages
    }

    static func reachability() throws {
        let manager = NetworkReachabilityManager.shared           // any usable network
        try manager.startMonitoring { status in                   // on a queue of the manager's own by default
            print(status)                                         // "Reachable via Ethernet", "Not Reachable", ...
        }
    }
}

enum MultipartSamples {
    static func upload() async throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(
            urlString: "https://example.com/upload", parameters: ["album": ["title": "Holiday", "tags": ["sea", "sun"]]]
        ) { form in
            try form.appendPart(fileURL: URL(fileURLWithPath: "/srv/photos/beach.jpg"), name: "photo")
            form.appendPart(formData: Data("public".utf8), name: "visibility")
        }
        let response = try await SessionManager().data(for: request)
        _ = response
    }
}
