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

    /// A passing rule.
    static func pass(_ rule: String, _ detail: String? = nil) -> Self { Self(rule: rule, passed: true, detail: detail) }

    /// A broken rule with what was expected and what came back.
    static func fail(_ rule: String, expected: String? = nil, actual: String? = nil, _ detail: String? = nil) -> Self {
        Self(rule: rule, passed: false, expected: expected, actual: actual, detail: detail)
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
