import Foundation
import SluiceConformanceKit
import SluiceCore

/// `plugins.loadable`: checks each plugin library given with `--plugin` against ``PluginContract``: it
/// loads through the C table, its media types resolve to it, the samples of its `--plugin-samples` file
/// decode or are refused as they say (each call bounded in time), answers without content give no
/// value, concurrent use gives the same outcomes, and its answers' memory is given back. A plugin given
/// without samples breaks the "has a sample that decodes" rule: without one nothing shows it decodes.
struct PluginSuite: ConformanceSuite {
    let name = "plugins.loadable"
    let summary = "plugin libraries (--plugin PATH, --plugin-samples FILE) meet the plugin contract on their samples"

    func run(in context: ConformanceContext) async throws -> [CaseResult] {
        guard !context.pluginPaths.isEmpty else {
            return [CaseResult(id: "no plugin libraries given", passed: true, detail: "pass --plugin PATH to check one")]
        }
        var results: [CaseResult] = []
        for (index, path) in context.pluginPaths.enumerated() {
            let file = URL(fileURLWithPath: path).lastPathComponent
            var contract = PluginContract()
            if index < context.pluginSamplePaths.count {
                let samples = context.pluginSamplePaths[index]
                do {
                    contract = try PluginContract(contentsOf: URL(fileURLWithPath: samples))
                } catch {
                    results.append(CaseResult(id: "\(file): samples", passed: false, detail: error.message))
                    continue
                }
            }
            let report = await contract.check(libraryAt: path)
            results += report.findings.map { finding in
                let result = CaseResult(finding: finding)
                return CaseResult(id: "\(file): \(result.id)", passed: result.passed, detail: result.detail,
                                  expected: result.expected, actual: result.actual)
            }
        }
        return results
    }
}
