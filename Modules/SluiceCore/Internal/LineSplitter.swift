import Foundation

/// Splits bytes that arrive in chunks into lines ended by LF, CR or CRLF (a CR at the end of one chunk
/// and an LF at the start of the next are one line end). Pure: no I/O, one value per stream.
struct LineSplitter: Sendable {
    private var partial: [UInt8] = []
    /// The last byte seen was a CR: an LF right after it ends nothing more.
    private var afterCR = false

    /// The lines `chunk` completes, without their line ends, in order.
    mutating func feed(_ chunk: Data) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            let count = bytes.count
            // The next LF and CR at or after `from` (`count` when none): found with memchr, so a long
            // line costs a scan at memory speed, not a loop over its bytes.
            func next(_ byte: UInt8, from: Int) -> Int {
                guard from < count, let found = memchr(base + from, Int32(byte), count - from) else { return count }
                return base.distance(to: UnsafeRawPointer(found))
            }
            var start = 0
            var nextLF = next(0x0A, from: 0)
            var nextCR = next(0x0D, from: 0)
            while true {
                let end = Swift.min(nextLF, nextCR)
                if end == count { break }
                let isLF = end == nextLF
                if isLF, afterCR, end == start, partial.isEmpty {
                    // The LF of a CRLF whose CR ended the line already.
                    afterCR = false
                } else {
                    partial.append(contentsOf: bytes[start..<end])
                    lines.append(partial)
                    partial.removeAll(keepingCapacity: true)
                    afterCR = !isLF
                }
                start = end + 1
                if nextLF < start { nextLF = next(0x0A, from: start) }
                if nextCR < start { nextCR = next(0x0D, from: start) }
            }
            if start < count {
                partial.append(contentsOf: bytes[start..<count])
                afterCR = false
            }
        }
        return lines
    }

    /// The bytes after the last line end (a last line without one), and a fresh start; `nil` when there
    /// are none.
    mutating func finish() -> [UInt8]? {
        defer {
            partial.removeAll()
            afterCR = false
        }
        return partial.isEmpty ? nil : partial
    }
}
