import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

/// The conformance suites that check a module against the vectors of `Tests/Vectors`, run as tests: each
/// failing case is an issue of its own. The modules' own test targets check the same code case by case and
/// need no part of the conformance tool.
@Suite("Vector-driven conformance suites")
struct VectorSuiteTests {
    /// A context for running conformance suites against this environment.
    static var context: ConformanceContext {
        ConformanceContext(vectors: TestEnvironment.vectors, servers: try? TestEnvironment.servers.get())
    }

    /// Runs the suite named `name` and records each failing case; returns how many cases ran.
    @discardableResult
    static func expectSuitePasses(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let suite = try #require(
            ConformanceRunner.allSuites.first { $0.name == name }, "no suite \(name)", sourceLocation: sourceLocation)
        let results = try await suite.run(in: context)
        #expect(!results.isEmpty, "suite \(name) ran no case", sourceLocation: sourceLocation)
        for result in results where !result.passed {
            Issue.record("\(name) / \(result.id): \(result.detail ?? "failed")", sourceLocation: sourceLocation)
        }
        return results.count
    }

    @Test("every registry vector passes")
    func registry() async throws {
        try await Self.expectSuitePasses("core.registry")
    }

    @Test("identity meets the content-coding contract")
    func identityContract() async throws {
        try await Self.expectSuitePasses("core.content-codings")
    }

    @Test("every media-type vector passes")
    func mediaTypes() async throws {
        try await Self.expectSuitePasses("core.media-types")
    }

    @Test("every header vector passes")
    func headers() async throws {
        try await Self.expectSuitePasses("core.headers")
    }

    @Test("every query-string, HTTP and JSON serializer vector passes", arguments: [
        "request.query-string", "request.http-serializer", "request.json-serializer",
    ])
    func requestSerializers(suite name: String) async throws {
        try await Self.expectSuitePasses(name)
    }

    @Test("every response vector passes")
    func responseSerializers() async throws {
        #expect(try await Self.expectSuitePasses("response.serializers") > 30)
    }

    @Test("every layout vector matches byte for byte (multipart.layout)")
    func multipartLayout() async throws {
        #expect(try await Self.expectSuitePasses("multipart.layout") >= 25)
    }

    @Test("the cache.decisions conformance suite passes on its vectors (lifetime, storing, plans, 304 selection, stale-if-error)")
    func cacheDecisions() async throws {
        let suites = ConformanceRunner.allSuites.filter { $0.name == "cache.decisions" }
        #expect(suites.count == 1)
        let report = await ConformanceRunner.run(suites, in: Self.context)
        for suite in report.suites {
            #expect(suite.error == nil, "\(suite.error ?? "")")
            #expect(suite.cases.count >= 70)
            for failed in suite.cases where !failed.passed { Issue.record("\(failed.id): \(failed.detail ?? "")") }
        }
    }
}
