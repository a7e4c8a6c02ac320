import Foundation
import SluiceConformanceKit
import SluiceCore
import SluiceGzip

/// `core.content-codings`: the contract every content coding meets (``ContentCodingContract``):
/// decoding what it encoded gives the original bytes whatever the chunking, the output limit stops
/// decoding with its error, and truncated or corrupt input is refused.
struct ContentCodingSuite: ConformanceSuite {
    let name = "core.content-codings"
    let summary = "content codings round-trip, honour output limits and refuse truncated and corrupt input"

    /// The codings checked. Default: `identity` and the gzip plugin's `gzip` and `deflate`.
    var codings: [any ContentCoding] = [IdentityCoding(), GzipContentCoding(.gzip), GzipContentCoding(.deflate)]

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        codings.flatMap(ContentCodingContract.check)
    }
}

extension ContentCodingContract {
    /// Runs every rule against `coding` and returns one conformance case per rule.
    public static func check(_ coding: any ContentCoding) -> [CaseResult] {
        findings(for: coding).map(CaseResult.init(finding:))
    }
}

extension CaseResult {
    /// The case of a kit finding: its rule as the id, its detail, expected and actual values.
    public init(finding: ContractFinding) {
        let detail = finding.passed
            ? finding.detail
            : [finding.expected.map { "expected \($0)" }, finding.actual.map { "got \($0)" }, finding.detail]
                .compactMap { $0 }.joined(separator: "; ")
        self.init(id: finding.rule, passed: finding.passed, detail: detail, expected: finding.expected, actual: finding.actual)
    }
}
