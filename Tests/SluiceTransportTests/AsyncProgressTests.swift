import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

extension TransportSuites {
    @Suite("Async API progress", .tags(.server), .needsServers, .serialized)
    struct AsyncProgressTests {
        @Test("an async download reports increasing counts, ending before it returns at the full size with the total known")
        func downloadProgress() async throws {
            let session = try Transport.session()
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-progress-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: target) }
            let reports = Locked<[TransferProgress]>([])
            let created = Locked<SessionTask?>(nil)
            let response = try await session.download(
                for: try Transport.request(.http, "/files/1m.bin"), to: { _, _ in target },
                didCreateTask: { task in created.withLock { $0 = task } },
                progress: { update in reports.withLock { $0.append(update) } })
            // Read at once: every call was made before the download returned.
            let seen = reports.withLock { $0 }
            #expect(response.fileURL == target)
            #expect(try Data(contentsOf: target).count == 1 << 20)
            #expect(created.withLock { $0 }?.kind == .download)
            #expect(seen.count > 1)
            let received = seen.map(\.bytesReceived)
            #expect(received == received.sorted(), "counts go down: \(received)")
            let last = try #require(seen.last)
            #expect(last.bytesReceived == 1 << 20)
            #expect(last.totalBytesExpected == 1 << 20)
            #expect(last.fractionReceived == 1.0)
        }

        @Test("an async upload reports progress ending before it returns at the body size")
        func uploadProgress() async throws {
            let session = try Transport.session()
            let body = Data(repeating: 7, count: 3 << 20)
            let reports = Locked<[TransferProgress]>([])
            let response = try await session.upload(
                for: try Transport.request(.httpbin, "/post", method: .post), from: .bytes(body),
                progress: { update in reports.withLock { $0.append(update) } })
            let seen = reports.withLock { $0 }
            #expect(response.response.statusCode == 200)
            #expect(seen.count > 1)
            let sent = seen.map(\.bytesSent)
            #expect(sent == sent.sorted(), "counts go down: \(sent)")
            let last = try #require(seen.last)
            #expect(last.bytesSent == Int64(body.count))
            #expect(last.totalBytesToSend == Int64(body.count))
            #expect(last.fractionSent == 1.0)
        }

        @Test("a failed async download calls progress no more after it throws")
        func failedDownload() async throws {
            let session = try Transport.session()
            let reports = Locked<Int>(0)
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-progress-\(UUID().uuidString)/x")
            await #expect(throws: SluiceError.self) {
                _ = try await session.download(
                    for: HTTPRequest(url: URL(string: "http://127.0.0.1:1/nothing")!), to: { _, _ in target },
                    progress: { _ in reports.withLock { $0 += 1 } })
            }
            let after = reports.withLock { $0 }
            // Bounded negative check: nothing announces that progress will never be called again, so the
            // count is read again a moment later. A slow machine only shortens what the pause covers; it
            // cannot make a correct session fail the check.
            try await Task.sleep(for: .milliseconds(50))
            #expect(reports.withLock { $0 } == after)
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
    }
}
