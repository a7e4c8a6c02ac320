import Foundation
import SluiceConformanceKit
import SluiceCore
import SluiceGzip
import SluiceTestSupport
import Testing

/// The plugin contract of SluiceConformanceKit: a plugin that keeps every rule passes, and each way of
/// breaking a rule is reported as that rule, with what was expected and what came back.
@Suite("Plugin contract")
struct PluginContractTests {
    static let samples = [
        PluginSample("two pairs", mediaType: "text/x-pairs", body: "a=1\nb=2\n", decodesTo: ["a:1", "b:2"] as Parameters),
        PluginSample("a suffix type", mediaType: "application/vnd.sluice+pairs; charset=utf-8", body: "k=v", decodesTo: ["k:v"] as Parameters),
        PluginSample("a line without =", mediaType: "text/x-pairs", body: "a=1\noops\n", failsWith: ["pairs.invalidLine"]),
        PluginSample("a 404 page", mediaType: "text/x-pairs", statusCode: 404, body: Data("<html>".utf8), expectation: .noValue),
    ]

    static func failedRules(_ report: PluginContractReport) -> [String] { report.failures.map(\.rule) }

    @Test("a plugin that keeps every rule passes, codings included")
    func goodPlugin() async {
        let plugin = PairsPlugin(contentCodings: [GzipContentCoding(.gzip)])
        let report = await PluginContract(samples: Self.samples).check(plugin)
        #expect(report.passed, "\(report)")
        let rules = report.findings.map(\.rule)
        for rule in [
            "registers", "text/x-pairs resolves to the plugin", "makes a serializer for text/x-pairs",
            "application/vnd.sluice+pairs resolves to the plugin", "text/x-pairs has a sample that decodes",
            "application/*+pairs has a sample that decodes", "a 204 as text/x-pairs gives no value",
            "the answer to HEAD as text/x-pairs gives no value", "the same outcomes from 8 threads at once",
            "coding gzip resolves", "coding x-gzip resolves", "gzip: truncated input is refused", "gzip: corrupt input is refused",
            "gzip: output limit", "sample \"a line without =\" fails with pairs.invalidLine",
        ] {
            #expect(rules.contains(rule), "missing rule \(rule)")
        }
    }

    @Test("a plugin that never decodes fails its valid samples")
    func alwaysThrows() async {
        let report = await PluginContract(samples: Self.samples).check(PairsPlugin(serializer: { ThrowingSerializer() }))
        let failed = Self.failedRules(report)
        #expect(failed.contains("sample \"two pairs\" decodes to [\"a:1\", \"b:2\"]"), "\(report)")
        let finding = report.failures.first { $0.rule.hasPrefix("sample \"two pairs\"") }
        #expect(finding?.actual?.contains("pairs.invalidLine") == true)
        // The sample it must refuse is refused: that rule holds.
        #expect(!failed.contains { $0.hasPrefix("sample \"a line without =\"") })
    }

    @Test("a plugin that declares a media type and makes no serializer for it")
    func declaresAndReturnsNil() async {
        let report = await PluginContract(samples: Self.samples).check(NoSerializerPlugin())
        let failed = Self.failedRules(report)
        #expect(failed.contains("makes a serializer for text/x-pairs"), "\(report)")
        #expect(failed.contains("text/x-pairs resolves to the plugin"))
        #expect(report.failures.first { $0.rule.hasPrefix("sample \"two pairs\"") }?.actual == "no serializer for the media type")
    }

    @Test("without samples, every declared media type breaks the has-a-sample rule")
    func noSamples() async {
        let report = await PluginContract().check(PairsPlugin())
        #expect(Self.failedRules(report) == ["text/x-pairs has a sample that decodes", "application/*+pairs has a sample that decodes"])
        #expect(report.failures.first?.detail?.contains("PluginSample(") == true)
    }

    @Test("a value where there is no content is reported for each answer without content")
    func valueWithoutContent() async {
        let report = await PluginContract(samples: Self.samples).check(PairsPlugin(serializer: { EmptyValueSerializer() }))
        let failed = Self.failedRules(report)
        for label in ["an empty 200 body", "a 204", "a 205", "the answer to HEAD"] {
            #expect(failed.contains("\(label) as text/x-pairs gives no value"), "\(label): \(report)")
        }
    }

    @Test("a call that hangs is reported as no answer, and the contract returns while it still hangs")
    func hangs() async {
        var samples = Self.samples
        samples.append(PluginSample("hangs", mediaType: "text/x-pairs", body: "hang=1", decodesTo: ["hang:1"] as Parameters))
        // The call blocks until the gate opens, which happens only after the report is back: a contract that
        // waited for the call would never return.
        let gate = DispatchSemaphore(value: 0)
        let report = await PluginContract(samples: samples, callTimeout: 0.3).check(PairsPlugin(serializer: { HangingSerializer(gate: gate) }))
        gate.signal()
        let finding = report.failures.first { $0.rule.hasPrefix("sample \"hangs\"") }
        #expect(finding?.actual == "no answer", "\(report)")
        #expect(finding?.detail?.contains("did not return within 0.3 s") == true)
        #expect(report.failures.count == 1, "\(report)")
    }

    @Test("a serializer that shares state between calls breaks the thread-safety rule")
    func sharedState() async {
        let shared = SharedScratchSerializer()
        let samples = (0..<6).map { index in
            PluginSample("body \(index)", mediaType: "text/x-pairs", body: String(repeating: "k\(index)=v\(index)\n", count: 50 + index),
                         decodesTo: Parameters.array(Array(repeating: .string("k\(index):v\(index)"), count: 50 + index)))
        }
        let plugin = PairsPlugin(responseMediaTypes: [MediaType("text/x-pairs")!], serializer: { shared })
        let report = await PluginContract(samples: samples, threads: 8, rounds: 40).check(plugin)
        #expect(Self.failedRules(report) == ["the same outcomes from 8 threads at once"], "\(report)")
    }

    @Test("codings: a careless coding misses truncation and damage; a decode-only coding needs samples")
    func codings() async {
        let careless = await PluginContract(samples: Self.samples).check(PairsPlugin(contentCodings: [CarelessCoding()]))
        let failed = Self.failedRules(careless)
        #expect(failed.contains("x-careless: truncated input is refused"), "\(careless)")
        #expect(failed.contains("x-careless: corrupt input is refused"))
        #expect(!failed.contains { $0.contains("round trip") })

        let unsampled = await PluginContract(samples: Self.samples).check(PairsPlugin(contentCodings: [DecodeOnlyCoding()]))
        #expect(Self.failedRules(unsampled) == ["x-plain: has samples"], "\(unsampled)")

        let body = Array("plain bytes for a decode-only coding".utf8)
        let sampled = await PluginContract(samples: Self.samples, codingSamples: [CodingSample(coding: "x-plain", encoded: body, decoded: body)])
            .check(PairsPlugin(contentCodings: [DecodeOnlyCoding()]))
        #expect(sampled.findings.contains { $0.rule == "x-plain: round trip sample 1" && $0.passed }, "\(sampled)")
    }

    @Test("a plugin with an invalid name does not register")
    func invalidName() async {
        let report = await PluginContract(samples: Self.samples).check(PairsPlugin(name: "bad name!"))
        #expect(report.findings.count == 1)
        #expect(report.failures.first?.rule == "registers")
        #expect(report.failures.first?.actual == SluiceError.Code.pluginInvalid.rawValue)
    }

    @Test("the report's text names the plugin, the count and each broken rule with expected and actual")
    func reportText() async {
        let report = await PluginContract(samples: Self.samples).check(NoSerializerPlugin())
        let text = report.description
        #expect(text.hasPrefix("plugin lazy: FAIL"))
        #expect(text.contains("FAIL makes a serializer for text/x-pairs: expected a serializer; got nil"))
        #expect(!text.contains("pass registers"))
        #expect(report.text(verbose: true).contains("pass registers"))
    }
}
