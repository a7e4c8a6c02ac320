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
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte == 0x0A || byte == 0x0D else { continue }
                if byte == 0x0A, afterCR, index == start, partial.isEmpty {
                    // The LF of a CRLF whose CR ended the line already.
                    afterCR = false
                    start = index + 1
                    continue
                }
                partial.append(contentsOf: bytes[start..<index])
                lines.append(partial)
                partial.removeAll(keepingCapacity: true)
                afterCR = byte == 0x0D
                start = index + 1
            }
            if start < bytes.count {
                partial.append(contentsOf: bytes[start..<bytes.count])
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
