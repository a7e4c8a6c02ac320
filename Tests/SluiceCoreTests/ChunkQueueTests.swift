import Foundation
import Testing

@testable import SluiceCore

/// The chunk queue under streamed bodies: order, partial takes, and read chunks let go at once.
@Suite("ChunkQueue")
struct ChunkQueueTests {
    @Test("chunks come out in order, whole or in parts of any size")
    func order() {
        var queue = ChunkQueue()
        for text in ["abc", "", "defgh", "i"] { queue.append(Data(text.utf8)) }
        #expect(queue.byteCount == 9)
        var buffer = [UInt8](repeating: 0, count: 2)
        var read = Data()
        while !queue.isEmpty {
            let count = buffer.withUnsafeMutableBytes { queue.take(into: $0) }
            read.append(contentsOf: buffer[..<count])
        }
        #expect(read == Data("abcdefghi".utf8))
        #expect(queue.byteCount == 0 && queue.heldBytes == 0)
        queue.append(Data("xy".utf8))
        #expect(queue.popFirst() == Data("xy".utf8))
        #expect(queue.popFirst() == nil)
    }

    @Test("a reader a few chunks behind holds only the unread ones")
    func readChunksGo() {
        var queue = ChunkQueue()
        for _ in 0..<3 { queue.append(Data(count: 100)) }
        var most = 0
        for index in 0..<1000 {
            queue.append(Data(count: 100))
            if index.isMultiple(of: 2) {
                _ = queue.popFirst()
            } else {
                var buffer = [UInt8](repeating: 0, count: 100)
                _ = buffer.withUnsafeMutableBytes { queue.take(into: $0) }
            }
            most = max(most, queue.heldBytes)
        }
        #expect(most <= 400)
        #expect(queue.byteCount == 300)
    }
}
