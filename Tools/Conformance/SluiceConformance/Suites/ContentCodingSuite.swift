import Foundation
import SluiceCore
import SluiceGzip

/// `core.content-codings`: the contract every content coding meets: decoding what it encoded gives
/// the original bytes whatever the chunking, the output limit stops decoding with its error, and a
/// coding with an end marker refuses truncated input.
struct ContentCodingSuite: ConformanceSuite {
    let name = "core.content-codings"
    let summary = "content codings round-trip, honour output limits and refuse truncated input"

    /// The codings checked. Default: `identity` and the gzip plugin's `gzip` and `deflate`.
    var codings: [any ContentCoding] = [IdentityCoding(), GzipContentCoding(.gzip), GzipContentCoding(.deflate)]

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        codings.flatMap(ContentCodingContract.check)
    }
}

/// The checks of the content-coding contract, usable for any coding.
public enum ContentCodingContract {
    /// Runs every check against `coding` and returns one result per check.
    public static func check(_ coding: any ContentCoding) -> [CaseResult] {
        var results: [CaseResult] = []
        let id = coding.name
        guard coding.canEncode else {
            results.append(CaseResult(id: "\(id): encodes", passed: true, detail: "decode-only coding"))
            return results
        }
        var generator = SplitMix64(seed: 0x5EED)
        let samples: [(String, [UInt8])] = [
            ("empty", []),
            ("one byte", [0x41]),
            ("64 KiB + 1 random", (0..<65_537).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            ("256 KiB text", Array(String(repeating: "Sluice streams bytes. ", count: 12_000).utf8)),
        ]
        for (label, sample) in samples {
            results.append(roundTrip(coding, sample, label: label))
        }
        // The output limit: decoding a body one byte larger than the limit must fail with its code.
        let sample = samples[3].1
        do {
            let encoded = try encode(coding, sample)
            let limits = ContentCodingLimits(maximumOutputBytes: Int64(sample.count - 1))
            _ = try decode(coding, encoded, limits: limits, chunk: 4096)
            results.append(CaseResult(id: "\(id): output limit", passed: false, detail: "decoded past the limit"))
        } catch {
            results.append(.expect("\(id): output limit", error.code, equals: .contentCodingOutputLimit))
        }
        if coding.name != "identity" {
            do {
                let encoded = try encode(coding, sample)
                _ = try decode(coding, Array(encoded.prefix(encoded.count / 2)), limits: .default, chunk: 4096)
                results.append(CaseResult(id: "\(id): truncated input", passed: false, detail: "no error for half a body"))
            } catch {
                results.append(.expect("\(id): truncated input", error.code, equals: .contentCodingTruncated))
            }
        }
        return results
    }

    private static func roundTrip(_ coding: any ContentCoding, _ sample: [UInt8], label: String) -> CaseResult {
        let id = "\(coding.name): round trip \(label)"
        do {
            let encoded = try encode(coding, sample)
            for chunk in [1, 7, 65_536] where chunk == 65_536 || encoded.count <= 300_000 {
                let decoded = try decode(coding, encoded, limits: .default, chunk: chunk)
                guard decoded == sample else {
                    return CaseResult(
                        id: id, passed: false,
                        detail: "decoding in \(chunk)-byte chunks gave \(decoded.count) bytes, expected \(sample.count)")
                }
            }
            return CaseResult(id: id, passed: true)
        } catch {
            return CaseResult(id: id, passed: false, detail: "\(error)")
        }
    }

    /// Encodes `input` with a new encoder of `coding`, ending the stream.
    public static func encode(_ coding: any ContentCoding, _ input: [UInt8]) throws(SluiceError) -> [UInt8] {
        let encoder = try coding.makeEncoder()
        var output: [UInt8] = []
        let sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void = { output.append(contentsOf: $0) }
        try input.withUnsafeBytes { buffer in Result { () throws(SluiceError) in try encoder.encode(buffer, output: sink) } }.get()
        try encoder.finish(output: sink)
        return output
    }

    /// Decodes `input` with a new decoder of `coding`, fed `chunk` bytes at a time, then finishes it.
    public static func decode(
        _ coding: any ContentCoding, _ input: [UInt8], limits: ContentCodingLimits = .default, chunk: Int = 64 * 1024
    ) throws(SluiceError) -> [UInt8] {
        let decoder = coding.makeDecoder(limits: limits)
        var output: [UInt8] = []
        let sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void = { output.append(contentsOf: $0) }
        var offset = 0
        while offset < input.count {
            let end = min(offset + chunk, input.count)
            try input[offset..<end].withUnsafeBytes { buffer in
                Result { () throws(SluiceError) in try decoder.decode(buffer, output: sink) }
            }.get()
            offset = end
        }
        try decoder.finish(output: sink)
        return output
    }
}

/// A small seeded generator (SplitMix64), so generated samples are the same on every run and a
/// failing case can be replayed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    /// Starts the sequence at `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
