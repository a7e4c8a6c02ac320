import Foundation


/// A rewindable ``BodyStream`` over bytes in memory.
public final class DataBodyStream: BodyStream {
    private let data: Data
    private let offset = Locked(0)

    /// Creates a stream that produces `data`.
    public init(_ data: Data) { self.data = data }

    /// The byte count.
    public var contentLength: Int64? { Int64(data.count) }

    /// Copies the next bytes; never throws.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        offset.withLock { offset in
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            let start = data.startIndex + offset
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + count))
            offset += count
            return count
        }
    }

    /// `true`.
    public var isRewindable: Bool { true }

    /// Starts over; never throws.
    public func rewind() throws(SluiceError) { offset.withLock { $0 = 0 } }
}
