/// What ``PluginContract`` found: every rule it checked for one plugin.
public struct PluginContractReport: Sendable, Codable, CustomStringConvertible {
    /// The plugin's name (or the library's path, when it did not load).
    public let plugin: String
    /// Each rule checked, in the order checked.
    public let findings: [ContractFinding]

    /// Creates a report.
    public init(plugin: String, findings: [ContractFinding]) {
        self.plugin = plugin
        self.findings = findings
    }

    /// Whether every rule held.
    public var passed: Bool { findings.allSatisfy(\.passed) }

    /// The rules that did not hold.
    public var failures: [ContractFinding] { findings.filter { !$0.passed } }

    /// A summary line, then one line per broken rule (every rule with `verbose`).
    public func text(verbose: Bool = false) -> String {
        let failed = failures.count
        var lines = ["plugin \(plugin): \(failed == 0 ? "PASS" : "FAIL") \(findings.count - failed)/\(findings.count) rules hold"]
        lines += (verbose ? findings : failures).map { "  " + $0.description }
        return lines.joined(separator: "\n")
    }

    /// ``text(verbose:)`` with only the broken rules: what an assertion message should show.
    public var description: String { text() }
}
