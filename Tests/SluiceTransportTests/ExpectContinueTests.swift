import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// `Tools/testenv/expectserver.py`, started for one suite: it accepts `Expect: 100-continue`, refuses it
/// with 417, or refuses the request before its body, and logs what each request carried.
final class ExpectServer: @unchecked Sendable {
    let process = Process()
    let log: URL
    let base: URL
    private let directory: URL

    init() async throws {
        let python = try #require(
            TestEnvironment.requireServers().values["SLUICE_PYTHON"], "SLUICE_PYTHON is not set: start the servers with Tools/testenv/start.sh")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-expect-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = directory.appendingPathComponent("requests.log")
        let ready = directory.appendingPathComponent("ready.json")
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            TestEnvironment.repositoryRoot.appendingPathComponent("Tools/testenv/expectserver.py").path,
            "--ready", ready.path, "--log", log.path, "--lifetime", "300",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The server writes its ready file under another name and renames it once it listens: whole when seen.
        try await Wait.forFile(ready.path)
        let found = try JSONSerialization.jsonObject(with: Data(contentsOf: ready)) as? [String: Any]
        let ports = try #require(found, "expectserver.py's ready file is not a JSON object")
        base = URL(string: "http://127.0.0.1:\(ports["port"] as? Int ?? 0)")!
    }

    struct Entry: Decodable, Equatable {
        let path: String
        let expect: String
        let received: Int
    }

    /// What the server logged for `path`, once `count` entries are there (the server logs a request once
    /// it has read it, which may be after its answer).
    func entries(_ path: String, count: Int) async throws -> [Entry] {
        func read() -> [Entry] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .compactMap { try? JSONDecoder().decode(Entry.self, from: Data($0.utf8)) }.filter { $0.path == path }
        }
        try await Wait.until("\(count) entries for \(path) in \(log.path)") { read().count >= count }
        return read()
    }

    deinit {
        // SIGKILL: a child of the test runner may inherit a signal mask that blocks SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The 100-continue threshold: which bodies ask, what a 417 and an early refusal do.
@Suite("Expect: 100-continue by body size", .tags(.server), .needsServers, .serialized)
struct ExpectContinueTests {
    let server: ExpectServer

    init() async throws { server = try await ExpectServer() }

    /// The wait for `100 Continue` is long: under a loaded test run the server's answer (100, 417, 413) can
    /// take longer than curl's default second, and curl would then send the body before it, which is not
    /// what these tests look at.
    func session(threshold: Int64?) throws -> SessionManager {
        try Transport.session {
            $0.connection.expectContinueThreshold = threshold
            $0.connection.expectContinueTimeout = 30
        }
    }

    func post(_ session: SessionManager, _ path: String, _ body: HTTPBody) async throws -> DataResponse {
        try await session.upload(for: HTTPRequest(url: server.base.appendingPathComponent(path), method: .post), from: body)
    }

    @Test("bodies at the threshold ask and are sent after 100 Continue; smaller ones, and any without a threshold, do not ask")
    func threshold() async throws {
        let asking = try session(threshold: 1024)
        defer { asking.invalidate(cancelingTasks: true) }
        #expect(try await post(asking, "accept", .bytes(Data(count: 65_536))).response.statusCode == 200)
        #expect(try await post(asking, "accept", .bytes(Data(count: 100))).response.statusCode == 200)
        let stream = AsyncSequenceBodyStream { AsyncThrowingStream<Data, any Error> { $0.yield(Data(count: 5000)); $0.finish() } }
        #expect(try await post(asking, "accept", .stream(stream)).response.statusCode == 200)
        let never = try session(threshold: nil)
        defer { never.invalidate(cancelingTasks: true) }
        #expect(try await post(never, "accept", .bytes(Data(count: 4 << 20))).response.statusCode == 200)
        let entries = try await server.entries("/accept", count: 4)
        #expect(entries == [
            .init(path: "/accept", expect: "100-continue", received: 65_536),
            .init(path: "/accept", expect: "", received: 100),
            // A body of unknown length asks too.
            .init(path: "/accept", expect: "100-continue", received: 5000),
            .init(path: "/accept", expect: "", received: 4 << 20),
        ])
    }

    @Test("a 417 sends the request again once, without asking; the body arrives whole")
    func expectationFailed() async throws {
        let asking = try session(threshold: 0)
        defer { asking.invalidate(cancelingTasks: true) }
        let answer = try await post(asking, "expectation-failed", .bytes(Data(count: 200_000)))
        #expect(answer.response.statusCode == 200)
        #expect(try await server.entries("/expectation-failed", count: 2) == [
            .init(path: "/expectation-failed", expect: "100-continue", received: 0),
            .init(path: "/expectation-failed", expect: "", received: 200_000),
        ])
    }

    @Test("a server that refuses before the body: its answer, and the 8 MiB body not sent")
    func refusedBeforeTheBody() async throws {
        let asking = try session(threshold: 1 << 20)
        defer { asking.invalidate(cancelingTasks: true) }
        let answer = try await post(asking, "refuse", .bytes(Data(count: 8 << 20)))
        #expect(answer.response.statusCode == 413)
        let entries = try await server.entries("/refuse", count: 1)
        #expect(entries.count == 1 && entries[0].expect == "100-continue")
        #expect(entries[0].received < 65_536, "\(entries[0].received) body bytes were sent after the refusal")
    }
}
