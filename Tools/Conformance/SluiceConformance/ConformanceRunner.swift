import Foundation
import Sluice

/// Runs conformance suites and gathers their report.
public enum ConformanceRunner {
    /// Every suite Sluice ships, in the order they run.
    public static let allSuites: [any ConformanceSuite] = [
        HeaderSuite(),
        MediaTypeSuite(),
        CacheSuite(),
        RegistrySuite(),
        ContentCodingSuite(),
        QueryStringSuite(),
        RequestSerializerSuite(kind: .http),
        RequestSerializerSuite(kind: .json),
        MultipartSuite(),
        ResponseSerializerSuite(),
        SystemEnvironmentSuite(),
        ServerSuite(),
        TransportSuite(),
        ConnectionSuite(),
        HostileInputSuite(),
        HostileParserSuite(),
        SecurityPolicySuite(),
        PluginSuite(),
        BundledPluginSuite(),
    ]

    /// Runs `suites` (default: ``allSuites``) in order. A suite that throws is recorded as failed with
    /// the error; the others still run. A suite that needs servers (``ConformanceRequirements/servers``)
    /// is not run when none are configured in `context` or they do not answer: it is recorded as not run,
    /// with the command that starts them, and the report does not pass.
    ///
    /// - Parameters:
    ///   - progress: Called before and after each suite, on the running task. Default `nil`.
    public static func run(
        _ suites: [any ConformanceSuite] = allSuites, in context: ConformanceContext,
        progress: (@Sendable (ConformanceProgress) -> Void)? = nil
    ) async -> ConformanceReport {
        let started = Date()
        var results: [ConformanceReport.Suite] = []
        var serverProblem: String??
        for (index, suite) in suites.enumerated() {
            progress?(.started(name: suite.name, position: index + 1, total: suites.count))
            let clock = ContinuousClock.now
            var cases: [CaseResult] = []
            var failure: String?
            var notRun = false
            if suite.requirements.contains(.servers) {
                if serverProblem == nil { serverProblem = .some(ServerReachability.problem(with: context.servers)) }
                if let problem = serverProblem ?? nil {
                    failure = problem
                    notRun = true
                }
            }
            if !notRun {
                do {
                    cases = try await suite.run(in: context)
                } catch {
                    failure = String(describing: error)
                }
            }
            let elapsed = ContinuousClock.now - clock
            let result = ConformanceReport.Suite(
                name: suite.name, summary: suite.summary, error: failure, cases: cases,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                notRun: notRun)
            results.append(result)
            progress?(.finished(result, position: index + 1, total: suites.count))
        }
        let curl = LibcurlInfo.current
        return ConformanceReport(
            sluiceVersion: SluiceInfo.version,
            libcurl: "\(curl.version) (\(curl.tlsVersion ?? "no TLS"), HTTP/2 \(curl.supportsHTTP2 ? "yes" : "no"))",
            startedAt: started.formatted(.iso8601),
            serverSource: context.servers?.source,
            vectorsDirectory: context.vectors.map { ([$0.directory] + $0.extraDirectories).map(\.path).joined(separator: " + ") },
            suites: results)
    }
}
