import FuzzSupport
import SluiceCore

/// The body of every content-coding fuzz target (gzip and deflate, br, zstd): decoding with output
/// limits as the transport does for a response body.
///
/// The first byte picks the coding (through `coding`, which may read its bits: format, level), the
/// limits (a small output limit, a ratio limit from a small threshold, or none) and whether the rest is
/// decoded as it is (a hostile body) or first encoded (a round trip); the next bytes give the chunk sizes
/// the body arrives in.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: decoding
/// throws only `contentCoding.corruptInput`, `contentCoding.truncatedInput`,
/// `contentCoding.outputLimitExceeded` or `contentCoding.ratioLimitExceeded`; no more output than the
/// limit is handed out; a body decoded in chunks under an output limit gives the same bytes and outcome as the
/// body in one piece; an encoded body decodes back to itself.
public func fuzzContentCoding(
    _ data: UnsafePointer<UInt8>, _ size: Int, coding makeCoding: (_ choice: UInt8) -> any ContentCoding
) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let coding = makeCoding(choice)
    let limits: ContentCodingLimits
    switch choice >> 1 & 3 {
    case 0: limits = ContentCodingLimits(maximumOutputBytes: Int64(input.int(in: 0...65536)), maximumRatio: nil)
    case 1: limits = ContentCodingLimits(maximumOutputBytes: .max, maximumRatio: Double(input.byte() % 16 + 1), ratioThreshold: Int64(input.byte()))
    default: limits = .streaming
    }
    let roundTrip = choice & 8 != 0
    let sizes = (0..<Int(input.byte() % 6)).map { _ in input.byte() }
    let payload = input.rest()

    if roundTrip {
        let encoded = encode(payload, coding: coding, sizes: sizes)
        switch decode(chunks(of: encoded, sizes: sizes.reversed()), coding: coding, limits: .streaming) {
        case .success(let decoded):
            guard decoded == payload else { propertyFailed("\(payload.count) bytes came back as \(decoded.count)") }
        case .failure(let error):
            propertyFailed("an encoded body did not decode: \(error.code): \(error.message)")
        }
        return 0
    }

    let limited = decode(chunks(of: payload, sizes: sizes), coding: coding, limits: limits)
    let allowed: Set<SluiceError.Code> = [.contentCodingCorrupt, .contentCodingTruncated, .contentCodingOutputLimit, .contentCodingRatioLimit]
    if case .failure(let error) = limited, !allowed.contains(error.code) { propertyFailed("threw \(error.code): \(error.message)") }
    if case .success(let output) = limited, Int64(output.count) > limits.maximumOutputBytes {
        propertyFailed("\(output.count) bytes passed a limit of \(limits.maximumOutputBytes)")
    }
    // The outcome may not depend on the chunks (under an output limit only: the ratio counts per chunk).
    let bounded = ContentCodingLimits(maximumOutputBytes: 8 << 20, maximumRatio: nil)
    let chunked = decode(chunks(of: payload, sizes: sizes), coding: coding, limits: bounded)
    let whole = decode(payload.isEmpty ? [] : [payload], coding: coding, limits: bounded)
    switch (chunked, whole) {
    case (.success(let a), .success(let b)):
        guard a == b else { propertyFailed("chunks \(sizes) gave \(a.count) bytes, one piece \(b.count)") }
    case (.failure(let a), .failure(let b)):
        guard a.code == b.code else { propertyFailed("chunks \(sizes) threw \(a.code), one piece \(b.code)") }
    default:
        propertyFailed("chunks \(sizes) and one piece disagree: \(chunked.map(\.count)) vs \(whole.map(\.count))")
    }
    return 0
}

private func decode(_ pieces: [[UInt8]], coding: any ContentCoding, limits: ContentCodingLimits) -> Result<[UInt8], SluiceError> {
    let decoder = coding.makeDecoder(limits: limits)
    var output: [UInt8] = []
    do throws(SluiceError) {
        for piece in pieces {
            try piece.withUnsafeBytes { bytes in
                Result { () throws(SluiceError) in try decoder.decode(bytes) { output.append(contentsOf: $0) } }
            }.get()
        }
        try decoder.finish { output.append(contentsOf: $0) }
    } catch {
        return .failure(error)
    }
    return .success(output)
}

private func encode(_ payload: [UInt8], coding: any ContentCoding, sizes: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    do throws(SluiceError) {
        let encoder = try coding.makeEncoder()
        for piece in chunks(of: payload, sizes: sizes) {
            try piece.withUnsafeBytes { bytes in
                Result { () throws(SluiceError) in try encoder.encode(bytes) { output.append(contentsOf: $0) } }
            }.get()
        }
        try encoder.finish { output.append(contentsOf: $0) }
    } catch {
        propertyFailed("encoding failed: \(error.message)")
    }
    return output
}
