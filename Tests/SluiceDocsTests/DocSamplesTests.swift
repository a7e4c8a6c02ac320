import Foundation
import SluiceConformanceKit
import SluiceTestSupport
import Testing

/// The Swift samples of README.md and docs/ are compiled: each one appears, line for line, in the
/// sample sources of this target (or in the example plugin), which the build compiles. Package
/// manifests are checked by `swift package dump-package`.
@Suite("Documentation samples")
struct DocSamplesTests {
    struct Sample: CustomStringConvertible {
        let file: String
        let line: Int
        let lines: [String]
        var description: String { "\(file):\(line)" }
    }

    static let root = TestEnvironment.repositoryRoot

    /// Every ```swift block of README.md and docs/*.md.
    static func samples() throws -> [Sample] {
        let docs = root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 } + ["README.md"]
        var samples: [Sample] = []
        for page in pages {
            let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
            var current: (start: Int, lines: [String])?
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                if current == nil, line.trimmingCharacters(in: .whitespaces).hasPrefix("```swift") {
                    current = (index + 2, [])
                } else if let block = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                    samples.append(Sample(file: page, line: block.start, lines: block.lines))
                    current = nil
                } else if current != nil {
                    current!.lines.append(line)
                }
            }
        }
        return samples
    }

    /// The compiled sources, normalized: each line trimmed, blank lines dropped.
    static func compiledLines() throws -> [String] {
        var lines: [String] = []
        for directory in ["Tests/SluiceDocsTests", "Plugins/Examples"] {
            let base = root.appendingPathComponent(directory)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".swift") && !file.hasSuffix("DocSamplesTests.swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                lines += normalized(text.components(separatedBy: "\n"))
            }
        }
        return lines
    }

    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    @Test("every Swift sample in the docs is compiled by the build")
    func samplesAreCompiled() throws {
        let compiled = try Self.compiledLines()
        let samples = try Self.samples().filter { !Self.isManifest($0) && !Self.isWalkthroughFile($0) }
        #expect(samples.count >= 10)
        for sample in samples {
            // Imports sit at the top of the sample files; the rest must match line for line.
            let body = Self.normalized(sample.lines).filter { !$0.hasPrefix("import ") }
            #expect(Self.contains(compiled, body),
                    "\(sample) is not in Tests/SluiceDocsTests (or Plugins/Examples); add it there so it compiles")
        }
    }

    /// `swift` from PATH, else the standard install location.
    static var swiftExecutable: URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/swift"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return URL(fileURLWithPath: "/opt/swift/usr/bin/swift")
    }

    static func isManifest(_ sample: Sample) -> Bool {
        sample.lines.first?.hasPrefix("// swift-tools-version") == true
    }

    /// The names of the targets a manifest declares, and whether each is a test target.
    static func targetNames(in manifest: String) -> [(name: String, isTest: Bool)] {
        let pattern = try! NSRegularExpression(pattern: #"(executableTarget|testTarget|target)\(name: "([^"]+)""#)
        let range = NSRange(manifest.startIndex..., in: manifest)
        return pattern.matches(in: manifest, range: range).compactMap { match in
            guard let kind = Range(match.range(at: 1), in: manifest), let name = Range(match.range(at: 2), in: manifest) else { return nil }
            return (String(manifest[name]), manifest[kind] == "testTarget")
        }
    }

    /// Whether a sample is a whole file of the plugin walkthrough (its first line names its path), which
    /// `Tools/testenv/check-walkthrough.sh` builds and runs as a package of its own.
    static func isWalkthroughFile(_ sample: Sample) -> Bool {
        guard let first = sample.lines.first else { return false }
        return first.hasPrefix("// Sources/") || first.hasPrefix("// Tests/")
    }

    @Test("the plugin walkthrough has its manifest, plugin and test as whole files, and its samples file loads")
    func walkthrough() throws {
        let files = try Self.samples().filter(Self.isWalkthroughFile).map { $0.lines[0] }
        #expect(files.contains("// Sources/CSVPlugin/CSVSerializerPlugin.swift"), "\(files)")
        #expect(files.contains("// Tests/CSVPluginTests/CSVPluginContractTests.swift"), "\(files)")
        let manifests = try Self.samples().filter { Self.isManifest($0) && $0.lines.contains { $0.contains(#"name: "CSVPlugin""#) } }
        #expect(manifests.count == 1)
        // The samples file of the guide, as the tool reads it.
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "```json\n"))
        let end = try #require(guide.range(of: "\n```", range: start.upperBound..<guide.endIndex))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-guide-samples-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try String(guide[start.upperBound..<end.lowerBound]).write(to: file, atomically: true, encoding: .utf8)
        let contract = try PluginContract(contentsOf: file)
        #expect(contract.samples.count == 3)
        #expect(contract.codingSamples.first.map { String(decoding: $0.decoded, as: UTF8.self) } == "hi")
        #expect(contract.disabledProbes[.truncatedBody] != nil)
        #expect(contract.concatenatingMediaTypes == ["text/x-lines"])
    }

    @Test("every package manifest in the docs is a valid manifest, and one naming a local checkout works whatever its folder's name")
    func manifests() async throws {
        let manifests = try Self.samples().filter(Self.isManifest)
        #expect(!manifests.isEmpty)
        for manifest in manifests {
            let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-manifest-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try manifest.lines.joined(separator: "\n").write(
                to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            // A manifest naming a local checkout is loaded with its dependency: the checkout is this
            // repository, under a folder whose name is not "sluice", so the sample's `package:`
            // arguments must work whatever the user's folder is called.
            let local = manifest.lines.contains { $0.contains(#"path: "../sluice""#) }
            if local {
                let checkout = directory.appendingPathComponent("checkout-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createSymbolicLink(at: checkout, withDestinationURL: Self.root)
                let text = manifest.lines.joined(separator: "\n").replacingOccurrences(of: #"path: "../sluice""#, with: #"path: "\#(checkout.path)""#)
                try text.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
                for (target, isTest) in Self.targetNames(in: text) {
                    let sources = directory.appendingPathComponent("\(isTest ? "Tests" : "Sources")/\(target)")
                    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
                    // An empty source file named after no entry point: "main.swift" would make an executable.
                    try Data().write(to: sources.appendingPathComponent("\(target)Source.swift"))
                }
            }
            // SwiftPM leaves a scratch directory and lock files in TMPDIR: keep them in the one removed above.
            let swift = try await ChildProcess.run(
                executable: Self.swiftExecutable.path,
                arguments: ["package", "--package-path", directory.path, local ? "describe" : "dump-package"],
                environment: ["TMPDIR": directory.path])
            #expect(swift.status == 0, "\(manifest): \(swift.errors)")
        }
    }
}
