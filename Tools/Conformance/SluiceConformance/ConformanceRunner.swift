import Foundation
import Sluice

/// Runs conformance suites and gathers their report.
public enum ConformanceRunner {
    /// Every suite Sluice ships, in the order they run.
    public static let allSuites: [any ConformanceSuite] = [
        HeaderSuite(),
        MediaTypeSuite(),
        RegistrySuite(),
        ContentCodingSuite(),
        QueryStringSuite(),
        RequestSerializerSuite(kind: .http),
        RequestSerializerSuite(kind: .json),
        MultipartSuite(),
        ResponseSerializerSuite(),
        ServerSuite(),
        TransportSuite(),
        HostileInputSuite(),
        HostileParserSuite(),
        SecurityPolicySuite(),
        PluginSuite(),
        BundledPluginSuite(),
    ]

    /// Runs `suites` (default: ``allSuites``) in order. A suite that throws is recorded as failed with
    /// the error; the others still run.
    public static func run(
        _ suites: [any ConformanceSuite] = allSuites, in context: ConformanceContext
    ) async -> ConformanceReport {
        let started = Date()
        var results: [ConformanceReport.Suite] = []
        for suite in suites {
            let clock = ContinuousClock.now
            var cases: [CaseResult] = []
            var failure: String?
            do {
                cases = try await suite.run(in: context)
            } catch {
                failure = String(describing: error)
            }
            let elapsed = ContinuousClock.now - clock
            results.append(
                .init(
                    name: suite.name, summary: suite.summary, error: failure, cases: cases,
                    seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        }
        let curl = LibcurlInfo.current
        return ConformanceReport(
            sluiceVersion: SluiceInfo.version,
            libcurl: "\(curl.version) (\(curl.tlsVersion ?? "no TLS"), HTTP/2 \(curl.supportsHTTP2 ? "yes" : "no"))",
            startedAt: started.formatted(.iso8601),
            serverSource: context.servers?.source,
            vectorsDirectory: context.vectors?.directory.path,
            suites: results)
    }
}
