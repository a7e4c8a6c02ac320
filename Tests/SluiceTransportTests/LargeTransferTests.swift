import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("1 GiB transfers", .tags(.server, .slow), .needsServers, .runsLong, .serialized)
    struct LargeTransferTests {
        /// The SHA-256 nginx's files have, from the `SHA256SUMS` the test environment writes.
        static func expectedDigest(_ name: String) throws -> String {
            let sums = try String(contentsOf: URL(fileURLWithPath: try Transport.servedFilePath("SHA256SUMS")), encoding: .utf8)
            let line = try #require(
                sums.split(separator: "\n").first { $0.hasSuffix("  \(name)") },
                "\(name) is not served: the servers write the 1 GiB fixture only when started for the test suite (make test, make servers, or SLUICE_TESTENV_LARGE_FILES=1 Tools/testenv/start.sh)")
            return String(line.prefix(64))
        }

        static func sha256(ofFile path: String) async throws -> String { try await FileDigest.sha256(ofFile: path) }

        /// How much the process's peak resident memory grows while `body` runs: the peak is reset first
        /// (`/proc/self/clear_refs`). Other suites may run meanwhile, so only a large growth means much.
        static func peakGrowth(_ body: () async throws -> Void) async throws -> Int {
            func peak() throws -> Int {
                let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
                let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
                return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
            }
            try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
            let before = try peak()
            try await body()
            return try peak() - before
        }

        @Test("a 1 GiB download is written as it arrives and matches by size and SHA-256")
        func download() async throws {
            let expected = try Self.expectedDigest("1g.bin")
            let session = try Transport.session()
            let target = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-1g-\(UUID())")
            defer { try? FileManager.default.removeItem(at: target) }
            var downloaded: DownloadResponse?
            let growth = try await Self.peakGrowth {
                downloaded = try await session.download(for: Transport.request(.http, "/files/1g.bin")) { _, _ in target }
            }
            let result = try #require(downloaded)
            #expect(growth < 256 << 20, "peak memory grew by \(growth >> 20) MiB")
            let size = try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int
            #expect(size == 1 << 30)
            #expect(try await Self.sha256(ofFile: target.path) == expected)
            #expect(result.metrics.transactions.first?.bytesReceived == 1 << 30)
        }

        @Test("a 1 GiB body stream is uploaded in constant memory and arrives whole (size and SHA-256)")
        func upload() async throws {
            let expected = try Self.expectedDigest("1g.bin")
            let session = try Transport.session()
            let stream = try FileBodyStream(path: Transport.servedFilePath("1g.bin"))
            var request = try Transport.request(.httpbin, "/sluice/sha256", method: .put)
            try request.headers.set(name: "Content-Type", value: "application/octet-stream")
            var uploaded: DataResponse?
            let growth = try await Self.peakGrowth { uploaded = try await session.upload(for: request, from: .stream(stream)) }
            let result = try #require(uploaded)
            #expect(growth < 256 << 20, "peak memory grew by \(growth >> 20) MiB")
            let echo = try Transport.json(result.data)
            #expect(echo["received"] as? Int == 1 << 30)
            #expect(echo["sha256"] as? String == expected)
            #expect(result.metrics.transactions.first?.bytesSent == 1 << 30)
        }
    }
}
