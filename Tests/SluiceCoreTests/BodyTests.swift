import Foundation
import SluiceCore

import Testing

@Suite("Request bodies")
struct BodyTests {
    @Test("bytes: length, stream, rewind")
    func bytes() throws {
        let body = HTTPBody.bytes(Data("hello".utf8))
        #expect(try body.contentLength() == 5)
        let stream = try body.makeStream()
        #expect(try stream.readAll(chunkSize: 2) == Array("hello".utf8))
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(try buffer.withUnsafeMutableBytes { try stream.read(into: $0) } == 0)
        try stream.rewind()
        #expect(try buffer.withUnsafeMutableBytes { try stream.read(into: $0) } == 5)
        #expect(try stream.readAll() == Array("hello".utf8))
        #expect(try HTTPBody.none.contentLength() == 0)
        #expect(try HTTPBody.bytes(Data()).contentLength() == 0)
        #expect(HTTPBody.bytes(Data()).isPresent)
    }

    @Test("file: whole file and byte range, read in chunks, rewound")
    func file() throws {
        let path = try temporaryFile(bytes: (0..<10_000).map { UInt8($0 % 251) })
        defer { unlink(path) }
        let whole = try FileBodyStream(path: path)
        #expect(whole.contentLength == 10_000)
        #expect(try whole.readAll(chunkSize: 777) == (0..<10_000).map { UInt8($0 % 251) })
        let part = try FileBodyStream(path: path, range: 100..<200)
        #expect(try part.readAll(chunkSize: 7) == (100..<200).map { UInt8($0 % 251) })
        try part.rewind()
        part.close()
        #expect(try part.readAll().count == 100)
        #expect(try HTTPBody.file(path: path, range: 10..<20).contentLength() == 10)
    }

    @Test("file errors are specific")
    func fileErrors() throws {
        let missing = #expect(throws: SluiceError.self) { try FileBodyStream(path: "/nonexistent/sluice/file") }
        #expect(missing?.code == .bodyFileNotFound)
        let directory = #expect(throws: SluiceError.self) { try FileBodyStream(path: NSTemporaryDirectory()) }
        #expect(directory?.code == .bodyNotAFile)
        let path = try temporaryFile(bytes: [1, 2, 3])
        defer { unlink(path) }
        let range = #expect(throws: SluiceError.self) { try FileBodyStream(path: path, range: 0..<4) }
        #expect(range?.code == .bodyInvalidRange)
        let lengthError = #expect(throws: SluiceError.self) { try HTTPBody.file(path: "/nonexistent").contentLength() }
        #expect(lengthError?.code == .bodyFileNotFound)
    }

    @Test("a file that shrinks while it is read ends with a length mismatch, not a short body")
    func shrinkingFile() throws {
        let path = try temporaryFile(bytes: [UInt8](repeating: 7, count: 1000))
        defer { unlink(path) }
        let stream = try FileBodyStream(path: path)
        #expect(truncate(path, 500) == 0)
        let error = #expect(throws: SluiceError.self) { try stream.readAll(chunkSize: 100) }
        #expect(error?.code == .bodyLengthMismatch)
    }

    @Test("a stream that is not rewindable says so")
    func notRewindable() {
        final class OneShot: BodyStream {
            var contentLength: Int64? { nil }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int { 0 }
        }
        let stream = OneShot()
        #expect(!stream.isRewindable)
        let error = #expect(throws: SluiceError.self) { try stream.rewind() }
        #expect(error?.code == .bodyNotRewindable)
    }

    @Test("readAll checks the declared length")
    func declaredLength() {
        final class Liar: BodyStream {
            var contentLength: Int64? { 10 }
            let sent = Locked(false)
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
                sent.withLock { sent in
                    if sent { return 0 }
                    sent = true
                    buffer[0] = 1
                    return 1
                }
            }
        }
        let error = #expect(throws: SluiceError.self) { try Liar().readAll() }
        #expect(error?.code == .bodyLengthMismatch)
    }

    private func temporaryFile(bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "sluice-body-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
