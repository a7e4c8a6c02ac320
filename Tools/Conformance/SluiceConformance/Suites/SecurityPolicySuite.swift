import Foundation

/// `security.policy`: ``SecurityPolicyTable``'s rows against the trust-test servers — AFNetworking's
/// security-policy outcomes, each refusal with its own code — and, for every refusal after a
/// connection, proof from nginx's access log that no request reached the server.
struct SecurityPolicySuite: ConformanceSuite {
    let name = "security.policy"
    let summary = "SecurityPolicy against real TLS servers: AFNetworking's outcomes, typed refusals, no request sent on refusal"
    let requirements: ConformanceRequirements = .servers

    func run(in context: ConformanceContext) async throws -> [CaseResult] {
        let servers = try context.requireServers()
        let certificates = try SecurityPolicyTable.Certificates(servers: servers)
        var results: [CaseResult] = []
        var refusedProbes: [(id: String, probe: String, logOffset: UInt64)] = []
        var answeredProbes: [(id: String, probe: String, logOffset: UInt64)] = []
        for row in SecurityPolicyTable.rows {
            let run = try await SecurityPolicyTable.run(row, servers: servers, certificates: certificates)
            let passed = run.outcome == row.expected
            results.append(CaseResult(
                id: row.id, passed: passed,
                detail: passed ? nil : "expected \(row.expected), got \(run.outcome) (mirrors \(row.mirrors))"))
            switch (run.outcome, run.probe) {
            case (.refused, let probe?): refusedProbes.append((row.id, probe, run.logOffset))
            case (.status, let probe?): answeredProbes.append((row.id, probe, run.logOffset))
            default: break
            }
        }
        // Checked once every row has run, so a late log line would still be seen. The answered requests
        // show that the log does record what reaches nginx; nginx writes a request's line after it sent the
        // answer, so a line may come a moment after the client has it: each is waited for (up to 3 s)
        // before the refused probes are looked for.
        for (id, probe, offset) in answeredProbes {
            if try await Self.waitForLogLine(probe, servers: servers, after: offset) { continue }
            results.append(CaseResult(id: "\(id): the request is in the access log", passed: false, detail: "probe \(probe) not logged within 3 s"))
        }
        for (id, probe, offset) in refusedProbes where try SecurityPolicyTable.accessLogRecords(probe, servers: servers, after: offset) {
            results.append(CaseResult(id: "\(id): no request reached the server", passed: false, detail: "nginx logged probe \(probe)"))
        }
        results.append(CaseResult(
            id: "refused requests never reached nginx (\(refusedProbes.count) checked in the access log)",
            passed: !refusedProbes.isEmpty && !results.contains { $0.id.hasSuffix("no request reached the server") }))
        return results
    }

    /// Whether nginx's access log records `probe` after `offset`, looking again every 50 ms for up to 3 s.
    private static func waitForLogLine(_ probe: String, servers: ServerEnvironment, after offset: UInt64) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(3)
        while true {
            if try SecurityPolicyTable.accessLogRecords(probe, servers: servers, after: offset) { return true }
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
