import CZstd
import SluiceCore

/// A libzstd diagnostic for a result that is an error.
func zstdDiagnostic(_ result: Int) -> LibraryDiagnostic {
    LibraryDiagnostic(library: "libzstd", code: Int(ZSTD_getErrorCode(result).rawValue), message: String(cString: ZSTD_getErrorName(result)))
}

/// A streaming Zstandard decoder with the limits of ``ContentCodingLimits``.
final class ZstdStreamDecoder: ContentDecoder {
    /// RFC 8878 §3.1.1.1.2: a decoder for HTTP need not take a window over 8 MiB.
    static let windowLogMaximum: Int32 = 23

    private let context: OpaquePointer?
    private var budget: ContentCodingBudget
    private var output = [UInt8](repeating: 0, count: Int(ZSTD_DStreamOutSize()))
    /// Whether the last frame was complete when the input paused (`ZSTD_decompressStream` returned 0).
    private var frameComplete = true
    private var sawInput = false

    init(limits: ContentCodingLimits) {
        context = ZSTD_createDCtx()
        if let context { ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Self.windowLogMaximum) }
        budget = ContentCodingBudget(limits: limits)
    }

    deinit { if let context { ZSTD_freeDCtx(context) } }

    func decode(
        _ input: UnsafeRawBufferPointer, output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !input.isEmpty else { return }
        guard let context else { throw SluiceError(.contentCodingCorrupt, "libzstd could not make a decoder (out of memory)") }
        sawInput = true
        budget.record(input: input.count)
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        while true {
            var produced = 0
            let consumedBefore = inBuffer.pos
            let result = output.withUnsafeMutableBytes { buffer -> Int in
                var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                let result = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
                produced = outBuffer.pos
                return result
            }
            if ZSTD_isError(result) != 0 {
                throw SluiceError(.contentCodingCorrupt, "the zstd body is corrupt", library: zstdDiagnostic(result))
            }
            if produced > 0 {
                try budget.permit(output: produced)
                try output.withUnsafeBytes { buffer in
                    Result { () throws(SluiceError) in try sink(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                }.get()
            }
            // A call that moved nothing (the output was full exactly at a frame's end) says nothing of
            // the frame: its hint is the next frame header's size.
            if produced > 0 || inBuffer.pos > consumedBefore { frameComplete = result == 0 }
            // Done with this input once it is used up and the output buffer was not filled (nothing held back).
            if inBuffer.pos == inBuffer.size && produced < output.count { return }
        }
    }

    func finish(output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        guard sawInput else { return }  // an empty body is an empty body
        guard frameComplete else { throw SluiceError(.contentCodingTruncated, "the zstd body ended inside a frame") }
    }
}

/// A streaming Zstandard encoder: one frame with its content checksum.
final class ZstdStreamEncoder: ContentEncoder {
    private let context: OpaquePointer
    private var output = [UInt8](repeating: 0, count: Int(ZSTD_CStreamOutSize()))

    init(level: Int32) throws(SluiceError) {
        guard let context = ZSTD_createCCtx() else {
            throw SluiceError(.contentCodingUnsupported, "libzstd could not make an encoder (out of memory)")
        }
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        // A window a decoder for HTTP must take (RFC 8878: 8 MiB at most).
        ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, min(ZstdStreamDecoder.windowLogMaximum, 23))
        self.context = context
    }

    deinit { ZSTD_freeCCtx(context) }

    func encode(
        _ input: UnsafeRawBufferPointer, output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !input.isEmpty else { return }
        try run(ZSTD_e_continue, input, sink: sink)
    }

    func finish(output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        try run(ZSTD_e_end, UnsafeRawBufferPointer(start: nil, count: 0), sink: sink)
    }

    private func run(
        _ directive: ZSTD_EndDirective, _ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        while true {
            var produced = 0
            let remaining = output.withUnsafeMutableBytes { buffer -> Int in
                var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                let remaining = ZSTD_compressStream2(context, &outBuffer, &inBuffer, directive)
                produced = outBuffer.pos
                return remaining
            }
            if ZSTD_isError(remaining) != 0 {
                throw SluiceError(.contentCodingCorrupt, "libzstd failed to encode", library: zstdDiagnostic(remaining))
            }
            if produced > 0 {
                try output.withUnsafeBytes { buffer in
                    Result { () throws(SluiceError) in try sink(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                }.get()
            }
            if directive == ZSTD_e_end ? remaining == 0 : inBuffer.pos == inBuffer.size { return }
        }
    }
}
