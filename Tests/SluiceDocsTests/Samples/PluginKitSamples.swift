import Foundation
import SluiceConformanceKit
import SluiceCore
import Testing

// The walk-through of docs/plugins.md ("Checking your plugin in your own tests"): an author's test of the
// CSV plugin with SluiceConformanceKit. It runs here as it would in the author's package.
typealias CSVPlugin = PluginSamples.CSVPlugin

@Suite("CSV plugin contract")
struct CSVPluginContractTests {
    static let samples = [
        PluginSample("two rows", mediaType: "text/csv", body: "name,count\nsluice,3\n",
                     decodesTo: [["name", "count"], ["sluice", "3"]] as Parameters),
        PluginSample("one field", mediaType: "text/csv; charset=utf-8", body: "x", decodesTo: [["x"]] as Parameters),
        PluginSample("not UTF-8", mediaType: "text/csv", body: Data([0xFF, 0xFE]), expectation: .fails(codes: ["csv.notUTF8"])),
    ]

    @Test func meetsThePluginContract() async {
        let report = await PluginContract(samples: Self.samples).check(CSVPlugin())
        #expect(report.passed, "\(report)")
    }
}
