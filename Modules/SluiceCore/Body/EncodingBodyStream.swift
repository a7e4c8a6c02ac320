/// A ``BodyStream`` that encodes another stream with a content coding while it is read: the body of a
/// `Content-Encoding: gzip` upload, produced chunk by chunk and never held whole.
///
/// The encoded length is not known in advance, so ``contentLength`` is `nil` (chunked transfer coding
/// over HTTP/1.1). It can start over when the stream it encodes can; starting over begins a new
/// encoder. A session builds one for a request whose ``HTTPRequest/contentEncoding`` is set; it can
/// also be made directly:
///
/// ```swift
/// let encoded = try EncodingBodyStream(FileBodyStream(path: "events.json"), coding: GzipContentCoding(.gzip))
/// request.body = .stream(encoded)
/// try request.headers.set(name: "Content-Encoding", value: "gzip")
/// ```
public final class EncodingBodyStream: BodyStream {
    /// The coding applied.
    public let coding: any ContentCoding
    private let source: any BodyStream

    /// `@unchecked Sendable`: the encoder is a class, used only with the lock held.
    private struct State: @unchecked Sendable {
        var encoder: any ContentEncoder
        /// Encoded bytes not yet handed out, from `offset`.
        var pending: [UInt8] = []
        var offset = 0
        var input = [UInt8](repeating: 0, count: 64 * 1024)
        var sourceEnded = false
        var finished = false
    }
    private let state: Locked<State>

    /// Encodes `source` with `coding`.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/contentCodingUnsupported`` when the coding
    ///   does not encode, or what its ``ContentCoding/makeEncoder()`` throws.
    public init(_ source: any BodyStream, coding: any ContentCoding) throws(SluiceError) {
        guard coding.canEncode else {
            throw SluiceError(.contentCodingUnsupported, "the \(coding.name) coding does not encode")
        }
        self.source = source
        self.coding = coding
        self.state = Locked(State(encoder: try coding.makeEncoder()))
    }

    /// `nil`: the encoded length is known only at the end.
    public var contentLength: Int64? { nil }

    /// Copies the next encoded bytes, reading and encoding the source as needed.
    ///
    /// - Throws: What the source's ``BodyStream/read(into:)`` throws, or the coding's errors.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        return try state.withLock { (state) throws(SluiceError) -> Int in
            while state.offset == state.pending.count {
                guard !state.finished else { return 0 }
                state.pending.removeAll(keepingCapacity: true)
                state.offset = 0
                try refill(&state)
            }
            let count = min(buffer.count, state.pending.count - state.offset)
            state.pending.withUnsafeBytes { pending in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: pending[state.offset..<(state.offset + count)]))
            }
            state.offset += count
            return count
        }
    }

    /// Encodes the next chunk of the source, or ends the encoding when the source has ended.
    private func refill(_ state: inout State) throws(SluiceError) {
        var produced: [UInt8] = []
        let sink: (UnsafeRawBufferPointer) throws(SluiceError) -> Void = { produced.append(contentsOf: $0) }
        if state.sourceEnded {
            try state.encoder.finish(output: sink)
            state.finished = true
        } else {
            let count = try state.input.withUnsafeMutableBytes { input in
                Result { () throws(SluiceError) -> Int in try source.read(into: input) }
            }.get()
            if count == 0 {
                state.sourceEnded = true
            } else {
                let encoder = state.encoder
                try state.input.withUnsafeBytes { input in
                    Result { () throws(SluiceError) in try encoder.encode(UnsafeRawBufferPointer(rebasing: input[..<count]), output: sink) }
                }.get()
            }
        }
        state.pending = produced
    }

    /// Whether the source can start over.
    public var isRewindable: Bool { source.isRewindable }

    /// Starts the source over with a new encoder.
    ///
    /// - Throws: What the source's ``BodyStream/rewind()`` or the coding's ``ContentCoding/makeEncoder()`` throws.
    public func rewind() throws(SluiceError) {
        try source.rewind()
        let encoder = try coding.makeEncoder()
        state.withLock { $0 = State(encoder: encoder) }
    }

    /// Closes the source.
    public func close() { source.close() }

    /// Tells the source.
    public func stopReading() { source.stopReading() }
}
