import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceTransport

/// Downloads that fail part way keep their partial file and carry resume data, through the fault proxy's
/// `cut-random` port (each response cut after 1 to 32 MiB of its body) and `reset-mid-body` port (after
/// 1000 bytes).
@Suite("Resume after a failure", .tags(.server, .slow), .needsServers, .runsLong, .serialized)
struct ResumeAfterFailureTests {
    static func target() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-resume-\(UUID().uuidString)")
    }

    /// The fault port `fault`'s URL for `path` (the proxy forwards to nginx's plain HTTP port).
    static func url(_ fault: String, _ path: String) throws -> URL {
        URL(string: try TestEnvironment.faultURL(fault).absoluteString + path)!
    }

    /// `resume` pointed at another URL (the same resource through another port of the proxy).
    static func redirected(_ resume: ResumeData, to url: URL) -> ResumeData {
        ResumeData(
            url: url, headers: resume.headers, partialFilePath: resume.partialFilePath, validator: resume.validator,
            partialFileLength: resume.partialFileLength, partialFileModified: resume.partialFileModified)
    }

    @Test("200 MiB cut at five random points: each failure keeps the file and says how to resume; the sixth try completes it, whole")
    func cutFiveTimes() async throws {
        let session = try Transport.session()
        defer { session.invalidate(cancelingTasks: true) }
        let destination = Self.target()
        defer { try? FileManager.default.removeItem(at: destination) }
        var resume: ResumeData?
        var lengths: [Int64] = []
        let cutting = try Self.url("cut-random", "/files/200m.bin")
        for cut in 0..<5 {
            let attempt: Result<DownloadResponse, SluiceError>
            do throws(SluiceError) {
                if let earlier = resume {
                    attempt = .success(try await session.download(resumingWith: earlier) { _, _ in destination })
                } else {
                    attempt = .success(try await session.download(for: HTTPRequest(url: cutting)) { _, _ in destination })
                }
            } catch {
                attempt = .failure(error)
            }
            switch attempt {
            case .success:
                Issue.record("cut \(cut + 1): the download completed through the cutting port")
                return
            case .failure(let error):
                #expect(error.code == .connectionLost, "cut \(cut + 1): \(error)")
                let data = try #require(error.resumeData, "cut \(cut + 1): no resume data: \(error)")
                let next = try ResumeData(resumeData: data)
                let length = try #require(next.partialFileLength)
                #expect(length > (lengths.last ?? 0), "cut \(cut + 1): the partial file did not grow")
                #expect(try FileManager.default.attributesOfItem(atPath: next.partialFilePath)[.size] as? Int64 == length)
                #expect(next.validator?.hasPrefix("\"") == true)
                lengths.append(length)
                resume = next
            }
        }
        let last = try #require(resume)
        let finished = try await session.download(resumingWith: Self.redirected(last, to: try Self.url("pass", "/files/200m.bin"))) { _, _ in destination }
        #expect(finished.resumption == .continued(fromByte: lengths.last!))
        #expect(try await FileDigest.sha256(ofFile: destination.path) == (try TransportSuites.LargeTransferTests.expectedDigest("200m.bin")),
            "the file resumed at \(lengths) is not the served one")
        #expect(!FileManager.default.fileExists(atPath: last.partialFilePath) || last.partialFilePath == destination.path)
    }

    @Test("a resume against a changed entity (a new ETag) starts over instead of splicing two versions")
    func changedEntity() async throws {
        let name = "resume-\(UUID().uuidString).bin"
        let served = try Transport.servedFilePath(name)
        defer { try? FileManager.default.removeItem(atPath: served) }
        let first = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try first.write(to: URL(fileURLWithPath: served))
        let session = try Transport.session()
        defer { session.invalidate(cancelingTasks: true) }
        let destination = Self.target()
        defer { try? FileManager.default.removeItem(at: destination) }

        let error = await #expect(throws: SluiceError.self) {
            _ = try await session.download(for: HTTPRequest(url: try Self.url("reset-mid-body", "/files/\(name)"))) { _, _ in destination }
        }
        let resume = try ResumeData(resumeData: try #require(error?.resumeData))
        #expect(resume.partialFileLength == 1000)

        // The resource changes: another length, so another ETag whatever the clock.
        let second = Data((0..<((4 << 20) + 1)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
        try second.write(to: URL(fileURLWithPath: served))
        let finished = try await session.download(resumingWith: Self.redirected(resume, to: try Self.url("pass", "/files/\(name)"))) { _, _ in destination }
        #expect(finished.resumption == .startedOver(.serverSentWholeBody))
        #expect(try Data(contentsOf: destination) == second, "the resumed file spliced two versions")
    }

    @Test("nothing worth resuming (no validator) removes the partial file; removePartialFile removes a kept one; other bytes are not resume data")
    func nothingToResume() async throws {
        // httpbin's /drip sends no ETag or Last-Modified; an idle timeout stops it after its first bytes.
        let session = try Transport.session { $0.idleTimeout = 1 }
        defer { session.invalidate(cancelingTasks: true) }
        // The partial files of /drip, which sends `*`s (other tests' downloads run meanwhile and hold other bytes).
        func dripFiles() throws -> Set<String> {
            let directory = URL(fileURLWithPath: NSTemporaryDirectory())
            return Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { name in
                guard name.hasPrefix("sluice-download-"),
                    let bytes = try? Data(contentsOf: directory.appendingPathComponent(name)), !bytes.isEmpty
                else { return false }
                return bytes.allSatisfy { $0 == UInt8(ascii: "*") }
            })
        }
        let before = try dripFiles()
        let error = await #expect(throws: SluiceError.self) {
            _ = try await session.download(for: try Transport.request(.httpbin, "/drip?numbytes=4&duration=12&delay=0")) { _, _ in Self.target() }
        }
        #expect(error?.code == .idleTimedOut)
        #expect(error?.resumeData == nil)
        let after = try dripFiles()
        #expect(after.subtracting(before).isEmpty, "a partial file without a validator was left behind")

        let kept = await #expect(throws: SluiceError.self) {
            _ = try await session.download(for: HTTPRequest(url: try Self.url("reset-mid-body", "/files/1m.bin"))) { _, _ in Self.target() }
        }
        let resume = try ResumeData(resumeData: try #require(kept?.resumeData))
        #expect(FileManager.default.fileExists(atPath: resume.partialFilePath))
        resume.removePartialFile()
        #expect(!FileManager.default.fileExists(atPath: resume.partialFilePath))
        #expect(throws: SluiceError.self) { _ = try ResumeData(resumeData: Data("not resume data".utf8)) }
    }
}
