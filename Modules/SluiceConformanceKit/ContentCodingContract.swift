import SluiceCore

/// The rules every content coding meets, usable for any coding: decoding what it encoded gives the
/// original bytes whatever the chunking, the output limit stops decoding with its error, and truncated
/// or corrupt input is refused with a typed error. A coding that cannot encode is checked on the
/// ``CodingSample``s given for it.
public enum ContentCodingContract {
    /// Checks `coding` and returns one finding per rule.
    ///
    /// - Parameters:
    ///   - coding: The coding.
    ///   - samples: Encoded bodies with what they decode to; needed when the coding cannot encode,
    ///     checked besides the generated ones when it can. Default none.
    public static func findings(for coding: any ContentCoding, samples: [CodingSample] = []) -> [ContractFinding] {
        let id = coding.name
        var pairs: [(label: String, encoded: [UInt8], decoded: [UInt8])] = samples.enumerated().map {
            ("sample \($0.offset + 1)", $0.element.encoded, $0.element.decoded)
        }
        var findings: [ContractFinding] = []
        if coding.canEncode {
            for (label, sample) in generatedSamples() {
                do {
                    pairs.append((label, try encode(coding, sample), sample))
                } catch {
                    findings.append(.fail("\(id): encodes \(label)", actual: error.code.rawValue, error.message))
                }
            }
        } else if samples.isEmpty {
            return [.fail(
                "\(id): has samples", expected: "at least one CodingSample",
                "a decode-only coding can be checked only on encoded bodies: pass CodingSample(coding: \"\(id)\", encoded:, decoded:)")]
        }
        for pair in pairs {
            findings.append(roundTrip(coding, pair.encoded, pair.decoded, label: pair.label))
        }
        // The longest body checks the limits and the damaged inputs.
        guard let longest = pairs.filter({ $0.decoded.count > 1 }).max(by: { $0.decoded.count < $1.decoded.count }) else {
            return findings
        }
        let limitRule = "\(id): output limit"
        do {
            let limits = ContentCodingLimits(maximumOutputBytes: Int64(longest.decoded.count - 1), maximumRatio: nil)
            _ = try decode(coding, longest.encoded, limits: limits, chunk: 4096)
            findings.append(.fail(limitRule, expected: SluiceError.Code.contentCodingOutputLimit.rawValue, actual: "no error",
                                  "decoded \(longest.decoded.count) bytes under a limit of \(longest.decoded.count - 1)"))
        } catch {
            findings.append(expect(limitRule, error, in: [.contentCodingOutputLimit]))
        }
        guard coding.name != "identity", longest.encoded.count >= 8 else { return findings }
        let truncatedRule = "\(id): truncated input is refused"
        do {
            _ = try decode(coding, Array(longest.encoded.prefix(longest.encoded.count / 2)), limits: .streaming, chunk: 4096)
            findings.append(.fail(truncatedRule, expected: SluiceError.Code.contentCodingTruncated.rawValue, actual: "no error",
                                  "half of an encoded body decoded without an error"))
        } catch {
            findings.append(expect(truncatedRule, error, in: [.contentCodingTruncated]))
        }
        let corruptRule = "\(id): corrupt input is refused"
        var corrupt = longest.encoded
        for index in 0..<min(4, corrupt.count) { corrupt[index] ^= 0xFF }
        let middle = corrupt.count / 2
        for index in middle..<min(middle + 16, corrupt.count - 1) { corrupt[index] ^= 0xFF }
        do {
            let decoded = try decode(coding, corrupt, limits: .streaming, chunk: 4096)
            if decoded != longest.decoded {
                findings.append(.fail(corruptRule, expected: SluiceError.Code.contentCodingCorrupt.rawValue,
                                      actual: "\(decoded.count) bytes", "damaged input decoded to other bytes without an error"))
            } else {
                findings.append(.fail(corruptRule, expected: SluiceError.Code.contentCodingCorrupt.rawValue, actual: "no error",
                                      "damaged input decoded to the original bytes"))
            }
        } catch {
            findings.append(expect(corruptRule, error, in: [.contentCodingCorrupt, .contentCodingTruncated]))
        }
        return findings
    }

    /// The bodies every encoding coding is checked on: empty, one byte, 64 KiB + 1 of random bytes
    /// (the same on every run), 256 KiB of text.
    static func generatedSamples() -> [(String, [UInt8])] {
        var generator = SplitMix64(seed: 0x5EED)
        return [
            ("empty", []),
            ("one byte", [0x41]),
            ("64 KiB + 1 random", (0..<65_537).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            ("256 KiB text", Array(String(repeating: "Sluice streams bytes. ", count: 12_000).utf8)),
        ]
    }

    private static func roundTrip(_ coding: any ContentCoding, _ encoded: [UInt8], _ expected: [UInt8], label: String) -> ContractFinding {
        let rule = "\(coding.name): round trip \(label)"
        do {
            for chunk in [1, 7, 65_536] where chunk == 65_536 || encoded.count <= 300_000 {
                let decoded = try decode(coding, encoded, limits: .streaming, chunk: chunk)
                guard decoded == expected else {
                    return .fail(rule, expected: "\(expected.count) bytes", actual: "\(decoded.count) bytes",
                                 "decoding in \(chunk)-byte chunks gave other bytes")
                }
            }
            return .pass(rule)
        } catch {
            return .fail(rule, expected: "\(expected.count) bytes", actual: error.code.rawValue, error.message)
        }
    }

    private static func expect(_ rule: String, _ error: SluiceError, in codes: Set<SluiceError.Code>) -> ContractFinding {
        codes.contains(error.code)
            ? .pass(rule)
            : .fail(rule, expected: codes.map(\.rawValue).sorted().joined(separator: " or "), actual: error.code.rawValue, error.message)
    }

    /// Encodes `input` with a new encoder of `coding`, ending the stream.
    ///
    /// - Throws: What the coding's encoder throws (``SluiceError/Code/contentCodingUnsupported`` when it
    ///   cannot encode).
    public static func encode(_ coding: any ContentCoding, _ input: [UInt8]) throws(SluiceError) -> [UInt8] {
        let encoder = try coding.makeEncoder()
        var output: [UInt8] = []
        let sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void = { output.append(contentsOf: $0) }
        try input.withUnsafeBytes { buffer in Result { () throws(SluiceError) in try encoder.encode(buffer, output: sink) } }.get()
        try encoder.finish(output: sink)
        return output
    }

    /// Decodes `input` with a new decoder of `coding`, fed `chunk` bytes at a time, then finishes it.
    ///
    /// - Parameters:
    ///   - coding: The content coding whose decoder is used.
    ///   - input: The encoded bytes.
    ///   - limits: The decoder's limits. Default ``ContentCodingLimits/default``.
    ///   - chunk: Bytes fed per call (at least 1). Default 64 KiB.
    /// - Throws: What the decoder throws: the coding's errors and the limits'.
    public static func decode(
        _ coding: any ContentCoding, _ input: [UInt8], limits: ContentCodingLimits = .default, chunk: Int = 64 * 1024
    ) throws(SluiceError) -> [UInt8] {
        let decoder = coding.makeDecoder(limits: limits)
        var output: [UInt8] = []
        let sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void = { output.append(contentsOf: $0) }
        var offset = 0
        while offset < input.count {
            let end = min(offset + max(chunk, 1), input.count)
            try input[offset..<end].withUnsafeBytes { buffer in
                Result { () throws(SluiceError) in try decoder.decode(buffer, output: sink) }
            }.get()
            offset = end
        }
        try decoder.finish(output: sink)
        return output
    }
}
