import Foundation
import SluiceCore

/// The body of a multipart form, produced while it is sent.
///
/// The stream walks the parts in order, each in phases — its boundary and header lines, then its
/// body — and ends with the closing boundary. Bytes parts are copied, file parts are read through a
/// file descriptor in chunks (one file open at a time), stream parts are pulled from their stream;
/// memory use does not depend on the parts' sizes. ``contentLength`` is exact and known before the
/// first byte is read.
///
/// The stream is rewindable when every stream part is, so a redirect or retry can send it again.
/// With a ``MultipartThrottle``, each read returns at most one packet and the stream asks the
/// transport to wait the throttle's delay before the next (see ``delayBeforeNextRead()``).
public final class MultipartBodyStream: BodyStream {
    private enum Segment {
        /// Boundary and header lines (or the closing boundary).
        case framing([UInt8])
        /// The body of part `index`.
        case body(MultipartPart)
    }

    private struct State {
        var segment = 0
        var offset: Int64 = 0
        var file: FileBodyStream?
        var nextReadAllowed: ContinuousClock.Instant?
    }

    /// The boundary between the parts.
    public let boundary: MultipartBoundary
    /// The throttle, if any. Default `nil`.
    public let throttle: MultipartThrottle?
    /// The exact number of bytes the stream produces.
    public let length: Int64

    private let segments: [Segment]
    private let streamsRewind: Bool
    private let state = Locked(State())

    init(parts: [MultipartPart], boundary: MultipartBoundary, throttle: MultipartThrottle?) {
        var segments: [Segment] = []
        var length: Int64 = 0
        for (index, part) in parts.enumerated() {
            let framing = Array((index == 0 ? "--\(boundary.value)\r\n" : "\r\n--\(boundary.value)\r\n").utf8)
                + part.headerBytes
            segments.append(.framing(framing))
            segments.append(.body(part))
            length += Int64(framing.count) + part.body.length
        }
        let closing = Array("\r\n--\(boundary.value)--\r\n".utf8)
        segments.append(.framing(closing))
        length += Int64(closing.count)
        self.segments = segments
        self.length = length
        self.boundary = boundary
        self.throttle = throttle
        self.streamsRewind = parts.allSatisfy { part in
            if case .stream(let stream, _) = part.body { return stream.isRewindable }
            return true
        }
    }

    deinit { close() }

    /// ``length``: a multipart body's length is always known.
    public var contentLength: Int64? { length }

    /// Copies the next bytes of the body: as many as fit, or one packet when throttled.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/bodyFileNotFound``,
    ///   ``SluiceError/Code/bodyNotAFile`` or ``SluiceError/Code/bodyFileUnreadable`` when a file part
    ///   can no longer be read, ``SluiceError/Code/bodyLengthMismatch`` when a file shrank since it was
    ///   added, ``SluiceError/Code/multipartPartEndedEarly`` or ``SluiceError/Code/multipartPartTooLong``
    ///   when a stream part's length differs from its declared length, or what a stream part throws.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        let limit = min(buffer.count, throttle?.packetSize ?? .max)
        guard limit > 0 else { return 0 }
        return try state.withLock { (state) throws(SluiceError) -> Int in
            var written = 0
            while written < limit, state.segment < segments.count {
                let space = UnsafeMutableRawBufferPointer(rebasing: buffer[written..<limit])
                let count = try read(segments[state.segment], into: space, state: &state)
                if count == 0 {
                    state.file?.close()
                    state.file = nil
                    state.segment += 1
                    state.offset = 0
                } else {
                    written += count
                    state.offset += Int64(count)
                }
            }
            if let throttle, written > 0 { state.nextReadAllowed = .now + throttle.delay }
            return written
        }
    }

    /// The bytes of one segment from `state.offset`; `0` when the segment is done.
    private func read(_ segment: Segment, into buffer: UnsafeMutableRawBufferPointer, state: inout State)
        throws(SluiceError) -> Int
    {
        switch segment {
        case .framing(let bytes):
            return copy(bytes, from: state.offset, into: buffer)
        case .body(let part):
            switch part.body {
            case .data(let data):
                return copy(data, from: state.offset, into: buffer)
            case .file(let path, let length):
                guard state.offset < Int64(length) else { return 0 }
                if state.file == nil {
                    do throws(SluiceError) {
                        state.file = try FileBodyStream(path: path, range: 0..<length)
                    } catch where error.code == .bodyInvalidRange {
                        throw SluiceError(
                            .bodyLengthMismatch, "\(path) is shorter than the \(length) bytes it had when it was added")
                    }
                }
                return try state.file!.read(into: buffer)
            case .stream(let stream, let length):
                let remaining = length - state.offset
                guard remaining > 0 else {
                    try checkEnded(stream, part: part)
                    return 0
                }
                let window = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(Int64(buffer.count), remaining))])
                let count = try stream.read(into: window)
                guard count > 0 else {
                    throw SluiceError(
                        .multipartPartEndedEarly,
                        "the stream of part \(part.name.debugDescription) ended after \(state.offset) of its declared \(length) bytes")
                }
                return min(count, window.count)
            }
        }
    }

    /// Throws when a stream part still has bytes after its declared length.
    private func checkEnded(_ stream: any BodyStream, part: MultipartPart) throws(SluiceError) {
        var probe: UInt8 = 0
        let extra = try withUnsafeMutableBytes(of: &probe) { buffer in
            Result { () throws(SluiceError) -> Int in try stream.read(into: buffer) }
        }.get()
        guard extra == 0 else {
            throw SluiceError(
                .multipartPartTooLong,
                "the stream of part \(part.name.debugDescription) has more bytes than its declared \(part.body.length)")
        }
    }

    private func copy(_ bytes: some Collection<UInt8>, from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let start = bytes.index(bytes.startIndex, offsetBy: Int(offset))
        let count = min(buffer.count, bytes.distance(from: start, to: bytes.endIndex))
        guard count > 0 else { return 0 }
        let slice = bytes[start..<bytes.index(start, offsetBy: count)]
        let copied: Void? = slice.withContiguousStorageIfAvailable { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(source))
        }
        if copied == nil { buffer.copyBytes(from: slice) }
        return count
    }

    /// Whether the whole body can be sent again: `true` unless a stream part cannot start over.
    public var isRewindable: Bool { streamsRewind }

    /// Starts over at the first part, rewinding every stream part.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/bodyNotRewindable`` when a stream part
    ///   cannot start over, or what its ``BodyStream/rewind()`` throws.
    public func rewind() throws(SluiceError) {
        try state.withLock { (state) throws(SluiceError) in
            state.file?.close()
            state = State()
            for case .body(let part) in segments {
                if case .stream(let stream, _) = part.body { try stream.rewind() }
            }
        }
    }

    /// Closes the open file part, if any, and every stream part.
    public func close() {
        state.withLock { state in
            state.file?.close()
            state.file = nil
        }
        for case .body(let part) in segments {
            if case .stream(let stream, _) = part.body { stream.close() }
        }
    }

    /// Tells every stream part.
    public func stopReading() {
        for case .body(let part) in segments {
            if case .stream(let stream, _) = part.body { stream.stopReading() }
        }
    }

    /// With a throttle, the time left until the next packet may be read; otherwise `nil`.
    public func delayBeforeNextRead() -> Duration? {
        guard throttle != nil else { return nil }
        return state.withLock { state in
            guard let next = state.nextReadAllowed else { return nil }
            let left = next - .now
            return left > .zero ? left : nil
        }
    }
}
