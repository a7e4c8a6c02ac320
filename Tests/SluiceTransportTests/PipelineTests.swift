import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

/// A layer that counts the requests it sees and passes them on.
final class CountingLayer: HTTPLayer {
    private let seen = Locked<[HTTPRequest]>([])

    var requests: [HTTPRequest] { seen.withLock { $0 } }
    var count: Int { requests.count }
    func reset() { seen.withLock { $0.removeAll() } }

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
        seen.withLock { $0.append(request) }
        return try await next(request, context: context)
    }
}

/// One way to send a request through a session: the rows of the pipeline's tables.
struct SendingForm: Sendable, CustomStringConvertible {
    let description: String
    let send: @Sendable (_ session: SessionManager, _ request: HTTPRequest) async throws -> Void

    init(_ description: String, _ send: @escaping @Sendable (SessionManager, HTTPRequest) async throws -> Void) {
        self.description = description
        self.send = send
    }

    /// A temporary file holding `bytes`.
    static func file(_ bytes: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pipeline-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A destination in the temporary directory.
    static let destination: DownloadDestination = { _, _ in
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pipeline-\(UUID().uuidString)")
    }

    /// Every API form of the session, each sending the given request once.
    static let all: [SendingForm] = [
        SendingForm("data(for:)") { session, request in _ = try await session.data(for: request) },
        SendingForm("upload bytes") { session, request in
            var request = request
            request.method = .post
            _ = try await session.upload(for: request, from: .bytes(Data("abc".utf8)))
        },
        SendingForm("upload file") { session, request in
            var request = request
            request.method = .post
            let path = try file(Data("file body".utf8))
            defer { unlink(path) }
            _ = try await session.upload(for: request, from: .file(path: path))
        },
        SendingForm("upload stream") { session, request in
            var request = request
            request.method = .post
            _ = try await session.upload(for: request, from: .stream(DataBodyStream(Data("stream body".utf8))))
        },
        SendingForm("download(for:to:)") { session, request in
            let response = try await session.download(for: request, to: destination)
            unlink(response.fileURL.path)
        },
        SendingForm("download(resumingWith:)") { session, request in
            // Resume data for a partial file of 0 bytes: the resumed download asks from the start.
            let partial = try file(Data())
            let resume = ResumeData(url: request.url, headers: [:], partialFilePath: partial, validator: nil)
            let response = try await session.download(resumingWith: resume, to: destination)
            unlink(response.fileURL.path)
        },
        SendingForm("bytes(for:)") { session, request in
            let (stream, _) = try await session.bytes(for: request)
            for try await _ in stream {}
        },
        SendingForm("dataTask") { session, request in
            _ = try await withCheckedThrowingContinuation { continuation in
                session.dataTask(with: request) { continuation.resume(with: $0) }.resume()
            }
        },
        SendingForm("uploadTask") { session, request in
            var request = request
            request.method = .post
            _ = try await withCheckedThrowingContinuation { continuation in
                session.uploadTask(with: request, from: .bytes(Data("abc".utf8))) { continuation.resume(with: $0) }.resume()
            }
        },
        SendingForm("downloadTask") { session, request in
            let response = try await withCheckedThrowingContinuation { continuation in
                session.downloadTask(with: request, to: destination) { continuation.resume(with: $0) }.resume()
            }
            unlink(response.fileURL.path)
        },
        SendingForm("exchange into memory") { session, request in
            _ = try await session.exchange(request, receiving: .memory)
        },
        SendingForm("exchange into a file") { session, request in
            let exchange = try await session.exchange(request, receiving: .file(destination))
            if let url = exchange.body.fileURL { unlink(url.path) }
        },
        SendingForm("exchange as a stream") { session, request in
            let exchange = try await session.exchange(request, receiving: .stream)
            if case .stream(let stream) = exchange.body { for try await _ in stream {} }
        },
    ]
}

extension TransportSuites {
    @Suite("The pipeline: one chain of layers under every API")
    struct PipelineTests {
        /// A session with a counting layer at the top and one above the network.
        static func countingSession(
            _ adjust: (inout SessionConfiguration) -> Void = { _ in }
        ) throws -> (SessionManager, top: CountingLayer, network: CountingLayer) {
            let (top, network) = (CountingLayer(), CountingLayer())
            let session = try Transport.session {
                $0.layers = [top]
                $0.networkLayers = [network]
                adjust(&$0)
            }
            return (session, top, network)
        }

        @Test("each API form sends one request through the layers: one hop, or four for three redirects", arguments: SendingForm.all)
        func everyFormThroughTheChain(form: SendingForm) async throws {
            let (session, top, network) = try Self.countingSession()
            let direct = try Transport.request(.httpbin, "/anything/pipeline")
            try await form.send(session, direct)
            #expect(top.count == 1)
            #expect(network.count == 1)
            #expect(network.requests.first?.url.path == "/anything/pipeline")

            top.reset()
            network.reset()
            // /redirect/3 is three 302s to /get (GET only); the upload forms go through three 307s, which
            // keep the method and the body.
            if form.description.hasPrefix("upload") {
                var path = "/anything/pipeline"
                for _ in 0..<3 {
                    path = "/redirect-to?status_code=307&url=" + path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                }
                try await form.send(session, Transport.request(.httpbin, path))
            } else {
                try await form.send(session, Transport.request(.httpbin, "/redirect/3"))
            }
            #expect(top.count == 1, "the top layer sees the call once")
            #expect(network.count == 4, "the network layer sees the request and three redirects")
        }

        @Test("a 401 answered by the challenge handler is a second hop, seen by the network layer only", arguments: SendingForm.all.filter { $0.description != "bytes(for:)" && $0.description != "exchange as a stream" })
        func challengeRound(form: SendingForm) async throws {
            let (session, top, network) = try Self.countingSession {
                $0.authenticationChallengeHandler = { _, _ in Credential(user: "user", password: "passwd", schemes: [.basic]) }
            }
            // httpbin's /basic-auth takes GET only; /status/401 answers any method with a challenge (and
            // again after the credential: the handler is asked once).
            let path = form.description.hasPrefix("upload") ? "/status/401" : "/basic-auth/user/passwd"
            try await form.send(session, Transport.request(.httpbin, path))
            #expect(top.count == 1)
            #expect(network.count == 2)
        }
    }
}
