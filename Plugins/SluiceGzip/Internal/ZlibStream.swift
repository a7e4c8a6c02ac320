import CZlib
import SluiceCore

/// The size of zlib's output chunks.
let zlibChunkSize = 64 * 1024

/// A zlib diagnostic for a result code.
func zlibDiagnostic(_ code: Int32, _ stream: z_stream) -> LibraryDiagnostic {
    let message = stream.msg.map { String(cString: $0) } ?? "zlib error"
    return LibraryDiagnostic(library: "zlib", code: Int(code), message: message)
}

/// A streaming decoder: gzip (members concatenated), zlib-wrapped or raw deflate.
final class ZlibInflater: ContentDecoder {
    private var stream = z_stream()
    private var budget: ContentCodingBudget
    private let format: GzipContentCoding.Format
    private var initialized = false
    private var ended = false
    private var sawInput = false
    private var output = [UInt8](repeating: 0, count: zlibChunkSize)
    /// The first byte of a deflate body, held until the second tells zlib-wrapped from raw.
    private var heldByte: UInt8?

    init(format: GzipContentCoding.Format, limits: ContentCodingLimits) {
        self.format = format
        self.budget = ContentCodingBudget(limits: limits)
    }

    deinit { if initialized { inflateEnd(&stream) } }

    private func start(peeking first: UnsafeRawBufferPointer) throws(SluiceError) {
        let windowBits: Int32
        switch format {
        case .gzip:
            windowBits = 15 + 16
        case .deflate:
            // A zlib header: CM = 8 and the first two bytes a multiple of 31. Otherwise raw deflate.
            if first.count >= 2, first[0] & 0x0F == 8, (UInt16(first[0]) << 8 | UInt16(first[1])) % 31 == 0 {
                windowBits = 15
            } else {
                windowBits = -15
            }
        }
        let code = sluice_inflateInit2(&stream, windowBits)
        guard code == Z_OK else {
            throw SluiceError(.contentCodingCorrupt, "cannot start inflating", library: zlibDiagnostic(code, stream))
        }
        initialized = true
    }

    func decode(
        _ input: UnsafeRawBufferPointer, output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !input.isEmpty else { return }
        sawInput = true
        if !initialized {
            if format == .deflate, let held = heldByte {
                heldByte = nil
                let firstTwo = [held, input[0]]
                try firstTwo.withUnsafeBytes { peek in Result { () throws(SluiceError) in try start(peeking: peek) } }.get()
                try [held].withUnsafeBytes { held in
                    Result { () throws(SluiceError) in try decode(held, output: sink) }
                }.get()
            } else if format == .deflate, input.count < 2 {
                heldByte = input[0]
                return
            } else {
                try start(peeking: input)
            }
        }
        budget.record(input: input.count)
        var remaining = input
        while !remaining.isEmpty {
            if ended {
                // Another gzip member follows the one that ended; anything else after the end is an error.
                guard format == .gzip else {
                    throw SluiceError(.contentCodingCorrupt, "\(remaining.count) bytes follow the end of the deflate stream")
                }
                inflateReset(&stream)
                ended = false
            }
            let consumed = try inflate(remaining, sink: sink)
            remaining = UnsafeRawBufferPointer(rebasing: remaining[consumed...])
        }
    }

    /// Inflates from `input` until it is used up or the stream ends; returns the bytes consumed.
    private func inflate(_ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void)
        throws(SluiceError) -> Int
    {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        while true {
            let (code, produced) = output.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(buffer.count)
                let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                return (code, buffer.count - Int(stream.avail_out))
            }
            if produced > 0 {
                try budget.permit(output: produced)
                try output.withUnsafeBytes { buffer in
                    Result { () throws(SluiceError) in try sink(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                }.get()
            }
            switch code {
            case Z_STREAM_END:
                ended = true
                return input.count - Int(stream.avail_in)
            case Z_OK:
                if stream.avail_in == 0 && stream.avail_out != 0 { return input.count }
            case Z_BUF_ERROR:
                // No progress possible: all input used, more is needed.
                return input.count - Int(stream.avail_in)
            default:
                throw SluiceError(.contentCodingCorrupt, "the \(format.rawValue) body is corrupt", library: zlibDiagnostic(code, stream))
            }
        }
    }

    func finish(output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        guard sawInput else { return }  // an empty body is an empty body
        guard ended, heldByte == nil else {
            throw SluiceError(.contentCodingTruncated, "the \(format.rawValue) body ended before its stream did")
        }
    }
}

/// A streaming encoder: gzip or zlib-wrapped deflate.
final class ZlibDeflater: ContentEncoder {
    private var stream = z_stream()
    private var output = [UInt8](repeating: 0, count: zlibChunkSize)

    init(format: GzipContentCoding.Format, level: Int32) throws(SluiceError) {
        let windowBits: Int32 = format == .gzip ? 15 + 16 : 15
        let code = sluice_deflateInit2(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY)
        guard code == Z_OK else {
            throw SluiceError(.contentCodingUnsupported, "cannot start deflating", library: zlibDiagnostic(code, stream))
        }
    }

    deinit { deflateEnd(&stream) }

    func encode(
        _ input: UnsafeRawBufferPointer, output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !input.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        try run(Z_NO_FLUSH, sink: sink)
    }

    func finish(output sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        stream.next_in = nil
        stream.avail_in = 0
        try run(Z_FINISH, sink: sink)
    }

    private func run(_ flush: Int32, sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        while true {
            let (code, produced) = output.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(buffer.count)
                let code = deflate(&stream, flush)
                return (code, buffer.count - Int(stream.avail_out))
            }
            if produced > 0 {
                try output.withUnsafeBytes { buffer in
                    Result { () throws(SluiceError) in try sink(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                }.get()
            }
            if code == Z_STREAM_END { return }
            guard code == Z_OK || code == Z_BUF_ERROR else {
                throw SluiceError(.contentCodingCorrupt, "deflate failed", library: zlibDiagnostic(code, stream))
            }
            if flush == Z_NO_FLUSH && stream.avail_in == 0 && stream.avail_out != 0 { return }
        }
    }
}
