import SluiceCore
import Testing

@Suite("Content codings")
struct ContentCodingTests {
    @Test("the budget enforces the byte limit and, past its threshold, the ratio limit")
    func budget() throws {
        var bytes = ContentCodingBudget(limits: ContentCodingLimits(maximumOutputBytes: 100))
        bytes.record(input: 10)
        try bytes.permit(output: 100)
        let overflow = #expect(throws: SluiceError.self) { try bytes.permit(output: 1) }
        #expect(overflow?.code == .contentCodingOutputLimit)
        #expect(bytes.outputBytes == 100)

        var ratio = ContentCodingBudget(limits: ContentCodingLimits(maximumRatio: 10, ratioThreshold: 1000))
        ratio.record(input: 10)
        try ratio.permit(output: 1000)  // 100:1, but under the threshold
        let tooHigh = #expect(throws: SluiceError.self) { try ratio.permit(output: 1) }
        #expect(tooHigh?.code == .contentCodingRatioLimit)
    }

    @Test("identity does not encode names it does not answer to")
    func answers() {
        let identity = IdentityCoding()
        #expect(identity.answers(to: "IDENTITY"))
        #expect(!identity.answers(to: "gzip"))
    }
}
