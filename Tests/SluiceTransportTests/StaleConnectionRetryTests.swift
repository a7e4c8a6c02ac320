import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

/// A request libcurl would send again after its reused connection died unanswered: once for an
/// idempotent one (or one marked safe to repeat), never for another, never after an answer began.
@Suite("Stale connections")
struct StaleConnectionRetryTests {
    enum Step: CustomStringConvertible {
        case send, answer
        var description: String { self == .send ? "send" : "answer" }
    }

    @Test("each sequence of sendings and answers, for a request that may and may not be repeated", arguments: [
        ([Step.send], true, StaleConnectionRetry.Decision.send),
        ([.send], false, .send),
        ([.send, .send], true, .repeatOnce),  // died unanswered: once
        ([.send, .send], false, .refuse(repeatedAlready: false)),
        ([.send, .send, .send], true, .refuse(repeatedAlready: true)),  // died again: no second repeat
        ([.send, .answer, .send], false, .send),  // an answer came (a 401): an authentication round
        ([.send, .answer, .send, .send], false, .refuse(repeatedAlready: false)),
        ([.send, .answer, .send, .send], true, .repeatOnce),
    ])
    func decisions(steps: [Step], mayBeRepeated: Bool, last: StaleConnectionRetry.Decision) {
        var retry = StaleConnectionRetry()
        var decision = StaleConnectionRetry.Decision.send
        for step in steps {
            switch step {
            case .send: decision = retry.willSend(mayBeRepeated: mayBeRepeated)
            case .answer: retry.answerBegan()
            }
        }
        #expect(decision == last, "\(steps) \(mayBeRepeated)")
    }

    @Test("an attempt that failed: sent again by Sluice only when a reused connection died unanswered, once", arguments: [
        // (died, reused, answered, may be repeated, repeated already) -> send again
        (true, true, false, true, false, true),
        (true, true, false, false, false, false),  // a POST
        (true, false, false, true, false, false),  // a new connection that died: not a stale one
        (false, true, false, true, false, false),  // another failure (a timeout, a TLS error)
        (true, true, true, true, false, false),  // an answer had begun
        (true, true, false, true, true, false),  // once only
    ])
    func attemptFailed(died: Bool, reused: Bool, answered: Bool, mayBeRepeated: Bool, repeatedAlready: Bool, again: Bool) {
        var retry = StaleConnectionRetry()
        _ = retry.willSend(mayBeRepeated: mayBeRepeated)
        if repeatedAlready {
            _ = retry.willSend(mayBeRepeated: true)  // libcurl sent it again after a dead connection
        }
        if answered { retry.answerBegan() }
        #expect(retry.attemptFailed(connectionDied: died, reusedConnection: reused, mayBeRepeated: mayBeRepeated) == again)
        // Sluice's own repeat is once too: the next attempt of the same request dies again, and ends.
        retry.attemptStarted()
        _ = retry.willSend(mayBeRepeated: mayBeRepeated)
        #expect(!retry.attemptFailed(connectionDied: true, reusedConnection: true, mayBeRepeated: mayBeRepeated) || !again)
    }

    @Test("whether a request may be repeated: its mark, else its method", arguments: [
        (HTTPMethod.get, Bool?.none, true), (.head, nil, true), (.put, nil, true), (.delete, nil, true), (.options, nil, true),
        (.post, nil, false), (.patch, nil, false), (HTTPMethod(rawValue: "PURGE"), nil, false),
        (.post, true, true), (.get, false, false),
    ])
    func mayBeRepeated(method: HTTPMethod, mark: Bool?, expected: Bool) {
        var request = HTTPRequest(url: "http://127.0.0.1/x", method: method)
        request.isSafeToRepeat = mark
        #expect(request.mayBeRepeated == expected)
    }
}

extension TransportSuites {
    /// Against a server that closes each connection when its second request arrives, unanswered.
    @Suite("Stale connections against a server that closes at the edge", .serialized)
    struct StaleConnectionServerTests {
        static let ok = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok".utf8)

        /// Sends a GET to warm the connection, then `request` on it; returns its outcome and how many
        /// times the server saw `request`'s line.
        static func run(_ method: HTTPMethod, safe: Bool? = nil, body: Data? = nil) async throws -> (Result<Int, SluiceError>, Int) {
            let server = try RawTCPServer(reply: .closeOnSecondRequest(ok))
            defer { server.stop() }
            let session = try Transport.session { $0.maximumConnectionsPerHost = 1 }
            _ = try await session.data(for: HTTPRequest(url: server.url.appendingPathComponent("warm")))
            var request = HTTPRequest(url: server.url.appendingPathComponent("target"), method: method)
            request.isSafeToRepeat = safe
            let outcome: Result<Int, SluiceError>
            do throws(SluiceError) {
                let response: DataResponse
                if let body {
                    response = try await session.upload(for: request, from: .bytes(body))
                } else {
                    response = try await session.data(for: request)
                }
                outcome = .success(response.response.statusCode)
            } catch {
                outcome = .failure(error)
            }
            let seen = server.receivedHeads.filter { String(decoding: $0, as: UTF8.self).hasPrefix("\(method.rawValue) /target ") }.count
            return (outcome, seen)
        }

        @Test("a POST sent on a connection that dies unanswered arrives once and fails with connectionLost (libcurl alone sends it twice)", .tags(.server), .needsServers)
        func postNotRepeated() async throws {
            for body in [nil, Data("name=sluice".utf8)] {
                let (outcome, seen) = try await Self.run(.post, body: body)
                #expect(seen == 1, "the server saw the POST \(seen) times")
                guard case .failure(let error) = outcome else {
                    Issue.record("expected connectionLost, got \(outcome)")
                    continue
                }
                #expect(error.code == .connectionLost)
                #expect(error.message.contains("not sent again"), "\(error)")
            }
        }

        @Test("a GET, and a POST marked safe to repeat, are sent again once, transparently", .tags(.server), .needsServers)
        func idempotentRepeatedOnce() async throws {
            for (method, safe) in [(HTTPMethod.get, Bool?.none), (.put, nil), (.post, true)] {
                let (outcome, seen) = try await Self.run(method, safe: safe, body: method == .get ? nil : Data("x".utf8))
                #expect(try outcome.get() == 200, "\(method)")
                #expect(seen == 2, "\(method): seen \(seen) times")
            }
        }

        @Test("a GET marked not safe to repeat is not sent again", .tags(.server), .needsServers)
        func getMarkedOnce() async throws {
            let (outcome, seen) = try await Self.run(.get, safe: false)
            #expect(seen == 1)
            if case .failure(let error) = outcome { #expect(error.code == .connectionLost) } else { Issue.record("\(outcome)") }
        }
    }
}

/// `Tools/testenv/edgeserver.py`, started for one test: HTTP/1.1 and HTTP/2 (TLS) ports that close each
/// connection when its second request arrives, unanswered, and log every request they read.
final class EdgeServer {
    let process = Process()
    let log: URL
    let h1: URL
    let h2: URL
    private let directory: URL

    init() async throws {
        let servers = try TestEnvironment.requireServers()
        let python = try #require(servers.values["SLUICE_PYTHON"], "SLUICE_PYTHON is not set: start the servers with Tools/testenv/start.sh")
        let certificate = try #require(servers.values["SLUICE_SERVER_CERT"], "SLUICE_SERVER_CERT is not set")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-edge-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = directory.appendingPathComponent("requests.log")
        let ready = directory.appendingPathComponent("ready.json")
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            TestEnvironment.repositoryRoot.appendingPathComponent("Tools/testenv/edgeserver.py").path,
            "--certs", URL(fileURLWithPath: certificate).deletingLastPathComponent().path, "--ready", ready.path,
            "--log", log.path, "--h1-port", "0", "--h2-port", "0", "--lifetime", "120",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The server writes its ready file under another name and renames it once both ports listen: whole
        // when seen.
        try await Wait.forFile(ready.path)
        let ports = try JSONSerialization.jsonObject(with: Data(contentsOf: ready)) as? [String: Any]
        let found = try #require(ports, "edgeserver.py's ready file is not a JSON object")
        h1 = URL(string: "http://127.0.0.1:\(found["h1"] as? Int ?? 0)")!
        h2 = URL(string: "https://127.0.0.1:\(found["h2"] as? Int ?? 0)")!
    }

    /// How many times a request with this method and path reached the server (it logs a request before it
    /// answers it or closes the connection on it, so the count is whole once the request has ended).
    func count(_ method: HTTPMethod, _ path: String) -> Int {
        let lines = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return lines.split(separator: "\n").filter { $0.hasSuffix(" \(method.rawValue) \(path)") }.count
    }

    func stop() {
        // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

extension TransportSuites.StaleConnectionServerTests {
    /// Warms a connection to `base` with a GET, then sends `method` on it; the outcome.
    static func send(_ method: HTTPMethod, to base: URL, safe: Bool? = nil, body: Data? = nil) async throws -> Result<Int, SluiceError> {
        let session = try Transport.session { $0.maximumConnectionsPerHost = 1 }
        _ = try await session.data(for: HTTPRequest(url: base.appendingPathComponent("warm")))
        var request = HTTPRequest(url: base.appendingPathComponent("target"), method: method)
        request.isSafeToRepeat = safe
        do throws(SluiceError) {
            if let body { return .success(try await session.upload(for: request, from: .bytes(body)).response.statusCode) }
            return .success(try await session.data(for: request).response.statusCode)
        } catch {
            return .failure(error)
        }
    }

    @Test("over HTTP/2 and HTTP/1.1 against edgeserver.py: a POST arrives once and fails; a GET and a PUT arrive twice and succeed", .tags(.server), .needsServers)
    func bothProtocols() async throws {
        let server = try await EdgeServer()
        defer { server.stop() }
        for base in [server.h2, server.h1] {
            let label = base.scheme == "https" ? "HTTP/2" : "HTTP/1.1"
            let before = (post: server.count(.post, "/target"), get: server.count(.get, "/target"), put: server.count(.put, "/target"))
            let post = try await Self.send(.post, to: base, body: Data("a=1".utf8))
            #expect(server.count(.post, "/target") - before.post == 1, "\(label): POST")
            if case .failure(let error) = post { #expect(error.code == .connectionLost, "\(label)") } else { Issue.record("\(label): \(post)") }
            let get = try await Self.send(.get, to: base)
            #expect(try get.get() == 200, "\(label)")
            #expect(server.count(.get, "/target") - before.get == 2, "\(label): GET")
            let put = try await Self.send(.put, to: base, body: Data("b=2".utf8))
            #expect(try put.get() == 200, "\(label)")
            #expect(server.count(.put, "/target") - before.put == 2, "\(label): PUT")
        }
    }
}
