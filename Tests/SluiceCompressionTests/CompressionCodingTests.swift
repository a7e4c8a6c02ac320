import Foundation
import SluiceBrotli
import SluiceConformanceKit
import SluiceTestSupport
import SluiceZstd
import Testing

/// The brotli and Zstandard codings without a socket: the plugin contract, and agreement with the
/// `brotli` and `zstd` command-line tools both ways.
@Suite("brotli and zstd codings")
struct CompressionCodingTests {
    static let codings: [(tool: String, plugin: any SerializerPlugin)] = [("brotli", BrotliPlugin()), ("zstd", ZstdPlugin())]

    /// `bytes` through `tool` with `arguments` (`-c` to compress, `-d -c` to decompress).
    static func run(_ tool: String, _ arguments: [String], _ bytes: [UInt8]) async throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(tool)-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input")
        let output = directory.appendingPathComponent("output")
        try Data(bytes).write(to: input)
        // Through standard input and output, as a pipe: zstd does not shrink its window to fit a stream
        // of unknown size.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"), "no /usr/bin/\(tool): Tools/testenv/install.sh installs it")
        let shell = try await ChildProcess.run(
            executable: "/bin/sh",
            arguments: ["-c", "out=\"$1\"; shift; exec /usr/bin/\(tool) \"$@\" < \"$0\" > \"$out\"", input.path, output.path] + arguments)
        try #require(shell.status == 0, "\(tool) \(arguments): \(shell.errors)")
        return Array(try Data(contentsOf: output))
    }

    static let text = Array(String(repeating: "Sluice decodes brotli and zstd as the bytes arrive. ", count: 4_000).utf8)

    @Test("each plugin meets the plugin contract, with samples made by its command-line tool", arguments: [0, 1])
    func contract(index: Int) async throws {
        let (tool, plugin) = Self.codings[index]
        let name = plugin.contentCodings[0].name
        var samples: [CodingSample] = []
        for bytes in [Self.text, Array(repeating: 0, count: 1 << 20), []] {
            samples.append(CodingSample(coding: name, encoded: try await Self.run(tool, ["-c", "-f"], bytes), decoded: bytes))
        }
        let report = await PluginContract(codingSamples: samples).check(plugin)
        #expect(report.passed, "\(report)")
        #expect(report.findings.contains { $0.rule.hasPrefix("\(name): round trip") && $0.passed })
    }

    @Test("what the encoder makes, the command-line tool decodes", arguments: [0, 1])
    func toolDecodesOurs(index: Int) async throws {
        let (tool, plugin) = Self.codings[index]
        let coding = plugin.contentCodings[0]
        let encoded = try ContentCodingContract.encode(coding, Self.text)
        #expect(encoded.count < Self.text.count / 20)
        #expect(try await Self.run(tool, ["-d", "-c", "-f"], encoded) == Self.text)
    }

    @Test("what the command-line tool makes, the decoder decodes in any chunk size", arguments: [0, 1])
    func decodesTheTools(index: Int) async throws {
        let (tool, plugin) = Self.codings[index]
        let coding = plugin.contentCodings[0]
        let encoded = try await Self.run(tool, ["-c", "-f", "-9"], Self.text)
        for chunk in [1, 7, 4096, 1 << 20] {
            #expect(try ContentCodingContract.decode(coding, encoded, chunk: chunk) == Self.text, "chunk \(chunk)")
        }
    }

    @Test("a zstd frame that asks for a window over 8 MiB is refused (RFC 8878), not decoded into memory it names")
    func zstdWindowLimit() async throws {
        let encoded = try await Self.run("zstd", ["-c", "-f", "--zstd=wlog=27", "--no-content-size"], Self.text)
        let error = #expect(throws: SluiceError.self) { try ContentCodingContract.decode(ZstdContentCoding(), encoded, chunk: 4096) }
        #expect(error?.code == .contentCodingCorrupt)
        #expect(error?.library?.library == "libzstd", "\(error.map { "\($0)" } ?? "")")
        // The same text with a window within the limit decodes.
        let small = try await Self.run("zstd", ["-c", "-f", "--zstd=wlog=23", "--no-content-size"], Self.text)
        #expect(try ContentCodingContract.decode(ZstdContentCoding(), small, chunk: 4096) == Self.text)
    }

    @Test("bytes after a brotli stream's end are corrupt input; zstd frames concatenated decode one after another")
    func afterTheEnd() async throws {
        let brotli = try await Self.run("brotli", ["-c", "-f"], Self.text)
        let error = #expect(throws: SluiceError.self) { try ContentCodingContract.decode(BrotliContentCoding(), brotli + brotli, chunk: 4096) }
        #expect(error?.code == .contentCodingCorrupt)
        let zstd = try await Self.run("zstd", ["-c", "-f"], Self.text)
        #expect(try ContentCodingContract.decode(ZstdContentCoding(), zstd + zstd, chunk: 1000) == Self.text + Self.text)
    }

    @Test("the library versions are reported")
    func versions() {
        #expect(BrotliPlugin.libraryVersion.split(separator: ".").count == 3)
        #expect(ZstdPlugin.libraryVersion.split(separator: ".").count == 3)
    }
}
