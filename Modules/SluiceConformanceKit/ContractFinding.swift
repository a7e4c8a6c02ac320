/// The outcome of one rule of a contract, for one subject (a media type, a sample, a coding).
public struct ContractFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The rule and its subject, stable across runs: `sample "two rows" decodes`.
    public let rule: String
    /// Whether the rule held.
    public let passed: Bool
    /// What the rule expected, when it compared something.
    public let expected: String?
    /// What came back, when it compared something.
    public let actual: String?
    /// What went wrong and how to fix it, or a note on a pass.
    public let detail: String?

    /// Creates a finding.
    public init(rule: String, passed: Bool, expected: String? = nil, actual: String? = nil, detail: String? = nil) {
        self.rule = rule
        self.passed = passed
        self.expected = expected
        self.actual = actual
        self.detail = detail
    }

    /// A passing rule. Each text is bounded (see ``fail(_:expected:actual:_:)``).
    static func pass(_ rule: String, _ detail: String? = nil) -> Self {
        Self(rule: ReportText.excerpt(rule, limit: 200), passed: true, detail: detail.map { ReportText.excerpt($0, limit: 600) })
    }

    /// A broken rule with what was expected and what came back, each text bounded: a plugin's answer
    /// can be megabytes, and a report line must stay one a person can read.
    static func fail(_ rule: String, expected: String? = nil, actual: String? = nil, _ detail: String? = nil) -> Self {
        Self(
            rule: ReportText.excerpt(rule, limit: 200), passed: false, expected: expected.map { ReportText.excerpt($0, limit: 300) },
            actual: actual.map { ReportText.excerpt($0, limit: 400) }, detail: detail.map { ReportText.excerpt($0, limit: 600) })
    }

    /// `pass rule` or `FAIL rule: expected …, got …; detail`.
    public var description: String {
        var text = (passed ? "pass " : "FAIL ") + rule
        var parts: [String] = []
        if let expected { parts.append("expected \(expected)") }
        if let actual { parts.append("got \(actual)") }
        if let detail { parts.append(detail) }
        if !parts.isEmpty { text += ": " + parts.joined(separator: "; ") }
        return text
    }
}
