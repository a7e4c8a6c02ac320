import Foundation
import Logging
import Sluice
import SluiceTestSupport
import Testing

/// The manager's download verb, against nginx's files and httpbin.
@Suite("HTTPSessionManager download", .serialized)
struct DownloadVerbTests {
    private static func target() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("sluice-download-\(UUID().uuidString)")
            .appendingPathComponent("file.bin")
    }

    @Test("download writes the file where asked and reports progress to the full size")
    func downloadWithProgress() async throws {
        let manager = HTTPSessionManager(
            baseURL: try TestEnvironment.url(for: .http),
            logger: Logger(label: "sluice.tests") { _ in SwiftLogNoOpLogHandler() })
        let target = Self.target()
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        let reports = Locked<[TransferProgress]>([])
        let response = try await manager.download("files/1m.bin", to: target) { update in
            reports.withLock { $0.append(update) }
        }
        let seen = reports.withLock { $0 }
        #expect(response.value == target)
        #expect(response.response.statusCode == 200)
        #expect(response.attempts == 1)
        #expect(try Data(contentsOf: target) == TestEnvironment.servedFile("files/1m.bin"))
        #expect(seen.count > 1)
        let last = try #require(seen.last)
        #expect(last.bytesReceived == 1 << 20)
        #expect(last.totalBytesExpected == 1 << 20)
    }

    @Test("download sends its parameters in the query of a GET")
    func parametersInQuery() async throws {
        let manager = try Support.manager()
        let target = Self.target()
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        let response = try await manager.download("get", parameters: ["name": "value"], to: target)
        #expect(response.request.method == .get)
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: target)) as? [String: Any])
        let arguments = try #require(echo["args"] as? [String: Any])
        let name = arguments["name"].flatMap { ($0 as? String) ?? ($0 as? [String])?.first }
        #expect(name == "value")
    }

    @Test("a refused status fails with the response and leaves no file; retries are counted")
    func refusedStatus() async throws {
        let manager = try Support.manager(interceptor: RetryPolicy(retryLimit: 1))
        let target = Self.target()
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        do {
            _ = try await manager.download("status/503", to: target)
            Issue.record("a 503 was accepted")
        } catch {
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.response?.statusCode == 503)
            #expect(error.attempts == 2)
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }
}
