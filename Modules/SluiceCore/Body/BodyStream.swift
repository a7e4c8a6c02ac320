/// A request body that is pulled in chunks while it is sent.
///
/// The transport reads a caller's stream (``HTTPBody/stream(_:)``) ahead of the connection, on a queue
/// of its own and never on its engine thread, at most a small window (128 KiB) ahead of what was sent:
/// the body is produced while it is sent and never held whole, and a ``read(into:)`` that blocks or
/// takes its time stalls only its own task (one that produces nothing for the idle timeout fails it
/// with `transport.idleTimedOut`). A stream that can start over (``isRewindable``) lets a redirect or
/// retry send it again.
///
/// Calls to one stream never overlap: the transport reads, rewinds and closes it one call at a time,
/// though not always from the same thread. Implementations are classes because a stream has a position.
public protocol BodyStream: AnyObject, Sendable {
    /// The total number of bytes the stream produces, when known in advance; `nil` sends the body
    /// with chunked transfer coding. A stream that ends before this length, or runs past it, fails
    /// the request with ``SluiceError/Code/bodyLengthMismatch``.
    var contentLength: Int64? { get }

    /// Copies up to `buffer.count` next bytes into `buffer` and returns how many it copied; `0` means
    /// the stream has ended.
    ///
    /// - Throws: ``SluiceError`` (for example ``SluiceError/Code/bodyStreamFailed``); the request fails
    ///   with that error.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int

    /// Whether ``rewind()`` can start the stream over. Default `false`.
    var isRewindable: Bool { get }

    /// Starts the stream over from its first byte.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/bodyNotRewindable`` by default.
    func rewind() throws(SluiceError)

    /// Releases what the stream holds (open files). Reading after closing may reopen. Default: nothing.
    func close()

    /// The transfer reading this stream ended (it completed, failed or was cancelled), or will not read
    /// it again unless it rewinds it first: a stream whose ``read(into:)`` waits for a producer stops
    /// the producer and wakes that read, which may then throw or return 0 (its result is discarded).
    /// Called from any thread, possibly while a read is in flight. Default: nothing.
    func stopReading()

    /// How long the transport should wait before the next ``read(into:)``: a stream that paces itself
    /// (a bandwidth throttle) returns the time left until its next packet, and the transport pauses the
    /// upload meanwhile instead of blocking. Default `nil`: read now.
    func delayBeforeNextRead() -> Duration?
}

extension BodyStream {
    /// `false`: a stream is not rewindable unless it says so.
    public var isRewindable: Bool { false }

    /// Throws ``SluiceError/Code/bodyNotRewindable``.
    public func rewind() throws(SluiceError) {
        throw SluiceError(.bodyNotRewindable, "\(type(of: self)) cannot start over")
    }

    /// Does nothing.
    public func close() {}

    /// Nothing: a stream that reads what is already there has no producer to stop.
    public func stopReading() {}

    /// `nil`: the stream never asks the transport to wait.
    public func delayBeforeNextRead() -> Duration? { nil }

    /// Reads the whole stream into memory, from its first byte: a rewindable stream is rewound first.
    /// Meant for tests and small bodies.
    ///
    /// - Parameter chunkSize: Bytes per read. Default 64 KiB.
    /// - Throws: What ``read(into:)`` throws, or ``SluiceError/Code/bodyLengthMismatch`` when the bytes
    ///   read differ from ``contentLength``.
    public func readAll(chunkSize: Int = 64 * 1024) throws(SluiceError) -> [UInt8] {
        if isRewindable { try rewind() }
        var result: [UInt8] = []
        if let length = contentLength { result.reserveCapacity(Int(clamping: length)) }
        var chunk = [UInt8](repeating: 0, count: max(1, chunkSize))
        while true {
            let outcome = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SluiceError) -> Int in try read(into: buffer) }
            }
            let count = try outcome.get()
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        if let length = contentLength, Int64(result.count) != length {
            throw SluiceError(
                .bodyLengthMismatch, "stream declared \(length) bytes but produced \(result.count)")
        }
        return result
    }
}
