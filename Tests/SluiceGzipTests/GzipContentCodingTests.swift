import Foundation
import SluiceConformanceKit
import SluiceCore
import SluiceGzip
import SluiceTestSupport
import Testing

@Suite("gzip and deflate on zlib")
struct GzipContentCodingTests {
    private func encode(_ coding: GzipContentCoding, _ bytes: [UInt8]) throws -> [UInt8] {
        try ContentCodingContract.encode(coding, bytes)
    }

    private func decode(_ coding: GzipContentCoding, _ bytes: [UInt8], limits: ContentCodingLimits = .default) throws -> [UInt8] {
        try ContentCodingContract.decode(coding, bytes, limits: limits)
    }

    @Test("both codings meet the content-coding contract (round trips, limits, truncation)")
    func contract() {
        for coding in [GzipContentCoding(.gzip), GzipContentCoding(.deflate)] {
            for finding in ContentCodingContract.findings(for: coding) where !finding.passed {
                Issue.record("\(finding.rule): \(finding.detail ?? "") expected \(finding.expected ?? "-"), got \(finding.actual ?? "-")")
            }
        }
    }

    @Test("gzip output is what gzip(1) reads")
    func interoperates() async throws {
        let text = Array(String(repeating: "Sluice streams. ", count: 1000).utf8)
        let path = NSTemporaryDirectory() + "sluice-\(UUID()).gz"
        try Data(try encode(GzipContentCoding(.gzip), text)).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let gzip = try await ChildProcess.run(executable: "/bin/gzip", arguments: ["-dc", path])
        #expect(Array(gzip.output.utf8) == text)
    }

    @Test("concatenated gzip members decode one after another")
    func concatenated() throws {
        let gzip = GzipContentCoding(.gzip)
        let joined = try encode(gzip, Array("first,".utf8)) + encode(gzip, Array("second".utf8))
        #expect(try decode(gzip, joined) == Array("first,second".utf8))
    }

    @Test("raw deflate, as some servers send it, is accepted")
    func rawDeflate() throws {
        let zlibWrapped = try encode(GzipContentCoding(.deflate), Array("raw deflate body".utf8))
        // Strip the 2-byte zlib header and 4-byte Adler-32 trailer to get the raw deflate stream.
        let raw = Array(zlibWrapped.dropFirst(2).dropLast(4))
        #expect(try decode(GzipContentCoding(.deflate), raw) == Array("raw deflate body".utf8))
    }

    @Test("corrupt input is a typed error with zlib's diagnostic")
    func corrupt() throws {
        var bytes = try encode(GzipContentCoding(.gzip), Array(repeating: 7, count: 10_000))
        bytes[12] ^= 0xFF
        bytes[13] ^= 0xFF
        let error = #expect(throws: SluiceError.self) { try decode(GzipContentCoding(.gzip), bytes) }
        #expect(error?.code == .contentCodingCorrupt || error?.code == .contentCodingTruncated)
        let garbage = #expect(throws: SluiceError.self) { try decode(GzipContentCoding(.gzip), Array("not gzip at all".utf8)) }
        #expect(garbage?.code == .contentCodingCorrupt)
        #expect(garbage?.library?.library == "zlib")
    }

    @Test("a decompression bomb stops at the output limit")
    func bomb() throws {
        // 512 MiB of zeros deflate to about 500 KiB.
        let coding = GzipContentCoding(.gzip, level: 9)
        let encoder = try coding.makeEncoder()
        var bomb: [UInt8] = []
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<512 {
            try zeros.withUnsafeBytes { buffer in try encoder.encode(buffer) { (chunk) throws(SluiceError) in bomb += chunk } }
        }
        try encoder.finish { (chunk) throws(SluiceError) in bomb += chunk }
        #expect(bomb.count < 1 << 20)
        let limit: Int64 = 16 << 20
        let decoder = coding.makeDecoder(limits: ContentCodingLimits(maximumOutputBytes: limit, maximumRatio: nil))
        var produced: Int64 = 0
        let error = #expect(throws: SluiceError.self) {
            try bomb.withUnsafeBytes { buffer in
                try decoder.decode(buffer) { (chunk) throws(SluiceError) in produced += Int64(chunk.count) }
            }
        }
        #expect(error?.code == .contentCodingOutputLimit)
        #expect(produced <= limit)
    }

    @Test("the plugin registers gzip, x-gzip and deflate")
    func plugin() throws {
        let registry = try SerializerRegistry(plugins: [GzipPlugin()])
        #expect(registry.acceptEncoding == "gzip, deflate")
        #expect(registry.contentCoding(named: "x-gzip")?.name == "gzip")
        #expect(registry.contentCoding(named: "DEFLATE")?.name == "deflate")
    }
}
