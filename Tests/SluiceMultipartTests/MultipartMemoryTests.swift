import Foundation
import SluiceTestSupport
import Testing

/// A multipart upload streams its file: the peak memory of a 4 GiB upload is that of a 1 GiB one.
@Suite("Multipart memory", .serialized)
struct MultipartMemoryTests {
    /// Uploads a sparse file of `size` bytes (reads of zeros, no disk) to nginx's `/upload` in a child
    /// process; its peak RSS in KiB.
    static func peak(uploading size: Int64) throws -> Int {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-sparse-\(UUID())")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        let url = try TestEnvironment.url(for: .http).appendingPathComponent("upload")
        let outcome = try ChildProcess.run("sluice-multipart-probe", arguments: [url.absoluteString, file.path])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let line = try #require(outcome.output.split(separator: "\n").last)
        let json = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int])
        #expect(json["status"] == 200)
        #expect(Int64(json["bytes"] ?? 0) > size)
        return try #require(json["peakKiB"])
    }

    @Test("peak memory of a 1 GiB and of a 4 GiB multipart upload differ by less than 4 MiB")
    func constantMemory() throws {
        let small = try Self.peak(uploading: 1 << 30)
        let large = try Self.peak(uploading: 4 << 30)
        print("multipart peak RSS: 1 GiB \(small) KiB, 4 GiB \(large) KiB")
        #expect(abs(large - small) < 4 * 1024, "1 GiB: \(small) KiB, 4 GiB: \(large) KiB")
    }
}
