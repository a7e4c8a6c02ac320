import Glibc
import SluiceCore

/// Writes a body stream to a file all or nothing: into a temporary file beside the destination,
/// renamed over it once every byte is written and flushed.
enum MultipartFileWriter {
    static func write(_ stream: any BodyStream, to path: String) throws(SluiceError) {
        if stream.isRewindable { try stream.rewind() }
        // Split at the last "/" byte: a "/" followed by a combining mark is one Character, so a search by
        // Character would split one directory too high. (An ASCII byte in UTF-8 is always that character.)
        let bytes = Array(path.utf8)
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(decoding: bytes[..<$0], as: UTF8.self) } ?? "."
        let name = slash.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) } ?? path
        var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw failure("cannot create a file in \(directory)") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var finished = false
        defer {
            if !finished {
                _ = closeFile(descriptor)
                unlink(temporary)
            }
        }
        var written: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SluiceError) -> Int in try stream.read(into: buffer) }
            }.get()
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let result = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, count - offset) }
                if result < 0 {
                    if errno == EINTR { continue }
                    throw failure("cannot write \(temporary)")
                }
                offset += result
            }
            written += Int64(count)
        }
        if let length = stream.contentLength, length != written {
            throw SluiceError(.bodyLengthMismatch, "the stream declared \(length) bytes but produced \(written)")
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot flush \(temporary)") }
        guard closeFile(descriptor) == 0 else {
            unlink(temporary)
            finished = true
            throw failure("cannot close \(temporary)")
        }
        finished = true
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot move the body to \(path)")
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ what: String) -> SluiceError {
        SluiceError(.multipartWriteFailed, "\(what): \(String(cString: strerror(errno)))")
    }

    private static func closeFile(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }
}
