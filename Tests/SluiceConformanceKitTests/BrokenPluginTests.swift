import Foundation
import SluiceConformanceKit
import SluiceTestSupport
import Testing

/// Plugins broken in the ways a careful author's samples miss, each caught by the kit with those samples
/// plus the probes it derives from them; the same plugin done right passes.
@Suite("Plugin contract: what careful samples miss", .serialized)
struct BrokenPluginTests {
    /// What a careful author writes: small bodies, a suffix type, a refusal, a page without content.
    static let samples = PluginContractTests.samples + [
        PluginSample("non-ASCII", mediaType: "text/x-pairs; charset=utf-8", body: "clé=été\n", decodesTo: ["clé:été"] as Parameters),
        PluginSample("many lines", mediaType: "text/x-pairs", body: String(repeating: "key=value\n", count: 300),
                     decodesTo: Parameters.array(Array(repeating: .string("key:value"), count: 300))),
    ]

    static func failedRules(_ report: PluginContractReport) -> [String] { report.failures.map(\.rule) }

    @Test("the plugin done right passes every rule and every probe, which the report lists")
    func goodPlugin() async {
        // A generous call timeout: the repeated-body probe decodes 1 and 2 MiB, which a sanitizer's build
        // (make sanitize) takes well over the default 5 s for.
        let report = await PluginContract(samples: Self.samples, callTimeout: 60, concatenatingMediaTypes: ["text/x-pairs"])
            .check(PairsPlugin())
        #expect(report.passed, "\(report)")
        let rules = report.findings.map(\.rule)
        for probe in ContractProbe.allCases {
            #expect(rules.contains { $0.hasPrefix("probe \(probe): sample \"two pairs\" (text/x-pairs)") }, "\(probe): \(rules)")
        }
    }

    @Test("a catch-all declaration (*/* or text/*) is a finding unless its intent is stated, and the report prints the reason")
    func catchAll() async {
        for pattern in ["*/*", "text/*"] {
            let plugin = PairsPlugin(responseMediaTypes: [MediaType(pattern)!])
            let samples = Self.samples.filter { $0.mediaType.hasPrefix("text/") }
            let report = await PluginContract(samples: samples).check(plugin)
            #expect(Self.failedRules(report) == ["\(pattern) is not a catch-all, or is meant"], "\(pattern): \(report)")
            #expect(report.failures.first?.detail?.contains("intentionalWildcards") == true)
            let meant = await PluginContract(samples: samples, intentionalWildcards: [pattern: "a debugging dump of any body"]).check(plugin)
            #expect(meant.passed, "\(meant)")
            #expect(meant.text(verbose: true).contains("meant: a debugging dump of any body"))
        }
        // A +suffix pattern is not a catch-all.
        let suffix = await PluginContract(samples: Self.samples).check(PairsPlugin())
        #expect(!suffix.findings.contains { $0.rule.contains("catch-all") })
    }

    @Test("a shared scratch buffer without a lock is caught in at least 19 of 20 runs")
    func unlockedBuffer() async {
        let samples = (0..<6).map { index in
            PluginSample("body \(index)", mediaType: "text/x-pairs", body: String(repeating: "k\(index)=v\(index)\n", count: 20 + 7 * index),
                         decodesTo: Parameters.array(Array(repeating: .string("k\(index):v\(index)"), count: 20 + 7 * index)))
        }
        var caught = 0
        var overlaps: [String] = []
        for _ in 0..<20 {
            let shared = SharedScratchSerializer(pause: 0)
            let plugin = PairsPlugin(responseMediaTypes: [MediaType("text/x-pairs")!], serializer: { shared })
            let report = await PluginContract(
                samples: samples, disabledProbes: Dictionary(uniqueKeysWithValues: ContractProbe.allCases.map { ($0, "not this test") })
            ).check(plugin)
            let rule = report.findings.first { $0.rule == "the same outcomes from 8 threads at once" }
            if rule?.passed == false { caught += 1 }
            if let detail = rule?.detail, let range = detail.range(of: "at most ") { overlaps.append(String(detail[range.lowerBound...])) }
        }
        print("unlocked buffer caught in \(caught) of 20 runs; \(overlaps.prefix(3).joined(separator: " | "))")
        #expect(caught >= 19, "caught in \(caught) of 20 runs")
    }

    @Test("a plugin that truncates bodies over 64 KiB is caught by the repeated body of a type the author says concatenates")
    func truncatesLargeBodies() async {
        let plugin = PairsPlugin(serializer: { TruncatingSerializer() })
        let quiet = await PluginContract(samples: Self.samples).check(plugin)
        #expect(quiet.passed, "without concatenatingMediaTypes the probe does not run: \(quiet)")
        let report = await PluginContract(samples: Self.samples, callTimeout: 60, concatenatingMediaTypes: ["text/x-pairs"]).check(plugin)
        let failed = Self.failedRules(report)
        #expect(failed.contains("probe repeated body: sample \"two pairs\" (text/x-pairs)"), "\(report)")
        #expect(report.failures.first?.detail?.contains("cuts large bodies short") == true)
    }

    @Test("a plugin that reads charset=utf-16 as UTF-8 and ignores an unknown charset is caught by the derived probes")
    func ignoresCharset() async {
        let report = await PluginContract(samples: Self.samples).check(PairsPlugin(serializer: { UTF8OnlySerializer() }))
        let failed = Self.failedRules(report)
        #expect(failed.contains("probe utf-16: sample \"non-ASCII\" (text/x-pairs)"), "\(report)")
        #expect(failed.contains("probe unknown charset: sample \"two pairs\" (text/x-pairs)"), "\(report)")
        #expect(!failed.contains { !$0.hasPrefix("probe utf-16") && !$0.hasPrefix("probe unknown charset") }, "\(report)")
    }

    @Test("a probe switched off with a reason does not run, and the report prints the reason")
    func switchedOff() async {
        let report = await PluginContract(samples: Self.samples, disabledProbes: [.utf16: "the format is defined as UTF-8", .unknownCharset: "likewise"])
            .check(PairsPlugin(serializer: { UTF8OnlySerializer() }))
        #expect(report.passed, "\(report)")
        #expect(report.text(verbose: true).contains("pass probe utf-16: switched off: the format is defined as UTF-8"))
    }

    @Test("a wrong value of 600 KB is reported as a bounded excerpt around its first difference")
    func boundedReport() async {
        let lines = 60_000
        let body = String(repeating: "k=v\n", count: lines)
        var expected = Array(repeating: Parameters.string("k:v"), count: lines)
        expected[41_234] = .string("k:w")
        let report = await PluginContract(
            samples: [PluginSample("a large export", mediaType: "text/x-pairs", body: body, decodesTo: Parameters.array(expected))],
            threads: 2, rounds: 1, disabledProbes: Dictionary(uniqueKeysWithValues: ContractProbe.allCases.map { ($0, "not this test") })
        ).check(PairsPlugin(responseMediaTypes: [MediaType("text/x-pairs")!]))
        let finding = report.failures.first { $0.rule.hasPrefix("sample \"a large export\"") }
        #expect(finding != nil, "\(report)")
        for text in [finding?.rule, finding?.expected, finding?.actual, finding?.detail].compactMap({ $0 }) {
            #expect(text.count <= 700, "\(text.count) characters")
        }
        #expect(finding?.actual?.contains("first difference at character") == true, "\(finding.map { "\($0)" } ?? "")")
        #expect(finding?.actual?.contains("k:w") == true)
        #expect(report.description.count < 4_000)
    }
}
