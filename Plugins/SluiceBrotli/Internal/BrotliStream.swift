import CBrotli
import SluiceCore

/// The size of libbrotli's output chunks: 256 KiB (64 KiB ran at 0.92× `brotli -dc`, this at 0.96–0.99×; docs/performance.md).
let brotliChunkSize = 256 * 1024

/// A streaming brotli decoder with the limits of ``ContentCodingLimits``.
final class BrotliStreamDecoder: ContentDecoder {
    private let state: OpaquePointer?
    private var budget: ContentCodingBudget
    private var output = [UInt8](repeating: 0, count: brotliChunkSize)
    private var ended = false
    private var sawInput = false

    init(limits: ContentCodingLimits) {
        state = BrotliDecoderCreateInstance(nil, nil, nil)
        budget = ContentCodingBudget(limits: limits)
    }

    deinit { if let state { BrotliDecoderDestroyInstance(state) } }

    func decode(
        _ input: UnsafeRawBufferPointer, output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !input.isEmpty else { return }
        guard let state else { throw SluiceError(.contentCodingCorrupt, "libbrotli could not make a decoder (out of memory)") }
        sawInput = true
        guard !ended else { throw SluiceError(.contentCodingCorrupt, "\(input.count) bytes follow the end of the brotli stream") }
        budget.record(input: input.count)
        var availableIn = input.count
        var nextIn: UnsafePointer<UInt8>? = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        while true {
            var produced = 0
            let result = output.withUnsafeMutableBytes { buffer -> BrotliDecoderResult in
                var availableOut = buffer.count
                var nextOut: UnsafeMutablePointer<UInt8>? = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                produced = buffer.count - availableOut
                return result
            }
            if produced > 0 {
                try budget.permit(output: produced)
                try output.withUnsafeBytes { buffer in
                    Result { () throws(SluiceError) in try sink(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                }.get()
            }
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS:
                ended = true
                if availableIn > 0 {
                    throw SluiceError(.contentCodingCorrupt, "\(availableIn) bytes follow the end of the brotli stream")
                }
                return
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                continue
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                return
            default:
                let code = BrotliDecoderGetErrorCode(state)
                let message = BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "brotli error"
                throw SluiceError(
                    .contentCodingCorrupt, "the br body is corrupt",
                    library: LibraryDiagnostic(library: "libbrotli", code: Int(code.rawValue), message: message))
            }
        }
    }

    func finish(output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        guard sawInput else { return }  // an empty body is an empty body
        guard ended else { throw SluiceError(.contentCodingTruncated, "the br body ended before its stream did") }
    }
}

/// A streaming brotli encoder.
final class BrotliStreamEncoder: ContentEncoder {
    private let state: OpaquePointer
    private var output = [UInt8](repeating: 0, count: brotliChunkSize)

    init(quality: Int32) throws(SluiceError) {
        guard let state = BrotliEncoderCreateInstance(nil, nil, nil) else {
            throw SluiceError(.contentCodingUnsupported, "libbrotli could not make an encoder (out of memory)")
        }
        BrotliEncoderSetParameter(state, BROTLI_PARAM_QUALITY, UInt32(quality))
        self.state = state
    }

    deinit { BrotliEncoderDestroyInstance(state) }

    func encode(
        _ input: UnsafeRawBufferPointer, output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !input.isEmpty else { return }
        try run(BROTLI_OPERATION_PROCESS, input, sink: sink)
    }

    func finish(output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        try run(BROTLI_OPERATION_FINISH, UnsafeRawBufferPointer(start: nil, count: 0), sink: sink)
    }

    private func run(
        _ operation: BrotliEncoderOperation, _ input: UnsafeRawBufferPointer,
        sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        var availableIn = input.count
        var nextIn: UnsafePointer<UInt8>? = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        while true {
            var produced = 0
            let ok = output.withUnsafeMutableBytes { buffer -> Int32 in
                var availableOut = buffer.count
                var nextOut: UnsafeMutablePointer<UInt8>? = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let ok = BrotliEncoderCompressStream(state, operation, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                produced = buffer.count - availableOut
                return ok
            }
            guard ok == BROTLI_TRUE else { throw SluiceError(.contentCodingCorrupt, "libbrotli failed to encode") }
            if produced > 0 {
                try output.withUnsafeBytes { buffer in
                    Result { () throws(SluiceError) in try sink(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                }.get()
            }
            let more = BrotliEncoderHasMoreOutput(state) == BROTLI_TRUE
            if operation == BROTLI_OPERATION_FINISH {
                if BrotliEncoderIsFinished(state) == BROTLI_TRUE && !more { return }
            } else if availableIn == 0 && !more {
                return
            }
        }
    }
}
