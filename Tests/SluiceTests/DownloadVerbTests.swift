import Foundation
import Logging
import Sluice
import SluiceTestSupport
import Testing

/// The manager's download verb, against nginx's files and httpbin.
@Suite("HTTPSessionManager download", .tags(.server), .needsServers, .serialized)
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

    @Test("a download cut part way throws with resume data and keeps its partial file; retried attempts leave only the last one's")
    func resumeDataOnFailure() async throws {
        let quiet = Logger(label: "sluice.tests") { _ in SwiftLogNoOpLogHandler() }
        let cutting = try TestEnvironment.faultURL("reset-mid-body")
        let target = Self.target()
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        // The partial files of this test's cut downloads of 64k.bin: its first 1000 bytes, in files of their own.
        let head = try TestEnvironment.servedFile("files/64k.bin").prefix(1000)
        func partialFiles() throws -> Set<String> {
            let directory = URL(fileURLWithPath: NSTemporaryDirectory())
            return Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { name in
                guard name.hasPrefix("sluice-download-") else { return false }
                let url = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return false }
                return (try? Data(contentsOf: url)) == head
            })
        }
        let before = try partialFiles()

        let once = HTTPSessionManager(baseURL: cutting, logger: quiet)
        let error = await #expect(throws: SluiceError.self) { _ = try await once.download("files/1m.bin", to: target) }
        let resume = try ResumeData(resumeData: try #require(error?.resumeData, "no resume data in \(String(describing: error))"))
        #expect(resume.partialFileLength == 1000)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        // Resumed through the session, from another port of the proxy, it completes whole.
        let resumed = ResumeData(
            url: URL(string: try TestEnvironment.faultURL("pass").absoluteString + "/files/1m.bin")!, headers: resume.headers,
            partialFilePath: resume.partialFilePath, validator: resume.validator, partialFileLength: resume.partialFileLength,
            partialFileModified: resume.partialFileModified)
        let finished = try await #require(once.session).download(resumingWith: resumed) { _, _ in target }
        #expect(finished.resumption == .continued(fromByte: 1000))
        #expect(try Data(contentsOf: target) == TestEnvironment.servedFile("files/1m.bin"))

        let retrying = HTTPSessionManager(
            baseURL: cutting, interceptor: RetryPolicy(retryLimit: 2, exponentialBackoffScale: .milliseconds(1)), logger: quiet)
        let last = await #expect(throws: SluiceError.self) { _ = try await retrying.download("files/64k.bin", to: target) }
        #expect(last?.attempts == 3)
        let kept = try ResumeData(resumeData: try #require(last?.resumeData))
        #expect(try partialFiles().subtracting(before) == [URL(fileURLWithPath: kept.partialFilePath).lastPathComponent])
        kept.removePartialFile()
    }
}
