import SluiceConformance
import SluiceTestSupport
import Testing

/// Runs one conformance suite over the vectors in `Tests/Vectors` and records each failing case.
func expectSuitePasses(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let suite = try #require(
        ConformanceRunner.allSuites.first { $0.name == name }, "no suite \(name)", sourceLocation: sourceLocation)
    let results = try await suite.run(in: TestEnvironment.conformanceContext)
    #expect(!results.isEmpty, "suite \(name) ran no case", sourceLocation: sourceLocation)
    for result in results where !result.passed {
        Issue.record("\(name) / \(result.id): \(result.detail ?? "failed")", sourceLocation: sourceLocation)
    }
}
