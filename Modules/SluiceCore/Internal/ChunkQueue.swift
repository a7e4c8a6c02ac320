import Foundation

/// Body chunks in arrival order between a producer and a reader. A chunk is let go as soon as it is
/// taken, not when the queue next empties: a reader that keeps pace a few chunks behind never drains it,
/// and would otherwise hold every chunk it ever read (a whole body).
package struct ChunkQueue: Sendable {
    private var chunks: [Data] = []
    private var head = 0
    /// The unread bytes.
    package private(set) var byteCount = 0

    package init() {}

    /// Whether there is nothing to read.
    package var isEmpty: Bool { head == chunks.count }

    /// The bytes the queue holds, read or not: the unread ones when read chunks are let go (for tests).
    package var heldBytes: Int { chunks.reduce(0) { $0 + $1.count } }

    /// Adds `chunk` at the end.
    package mutating func append(_ chunk: Data) {
        chunks.append(chunk)
        byteCount += chunk.count
    }

    /// Takes the first chunk; `nil` when empty.
    package mutating func popFirst() -> Data? {
        guard head < chunks.count else { return nil }
        let chunk = chunks[head]
        chunks[head] = Data()
        head += 1
        byteCount -= chunk.count
        compact()
        return chunk
    }

    /// Copies up to `buffer.count` bytes from the front into `buffer` and takes them; a chunk read in
    /// part keeps its rest at the front. Returns how many bytes it copied.
    package mutating func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var copied = 0
        while copied < buffer.count, head < chunks.count {
            let chunk = chunks[head]
            let count = Swift.min(buffer.count - copied, chunk.count)
            chunk.withUnsafeBytes { bytes in
                (buffer.baseAddress! + copied).copyMemory(from: bytes.baseAddress!, byteCount: count)
            }
            copied += count
            byteCount -= count
            if count == chunk.count {
                chunks[head] = Data()
                head += 1
            } else {
                chunks[head] = chunk.dropFirst(count)
            }
        }
        compact()
        return copied
    }

    /// Drops every chunk.
    package mutating func removeAll() {
        chunks.removeAll()
        head = 0
        byteCount = 0
    }

    private mutating func compact() {
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
