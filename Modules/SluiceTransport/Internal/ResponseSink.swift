import Foundation
import SluiceCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a transfer's (decoded) response body goes. Written on the engine thread only; read by the
/// completion after the transfer ended (the engine's hand-off orders the two).
protocol ResponseSink: AnyObject {
    /// The response head arrived; the body follows.
    func begin(_ head: ResponseHead) throws(SluiceError)
    /// Body bytes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError)
    /// Whether the transfer should pause before handing more bytes (the consumer is behind).
    func shouldPause() -> Bool
    /// Drops what was written (before a redirect is followed).
    func reset() throws(SluiceError)
    /// The body received so far, for an error to carry; `nil` for a sink that does not keep it.
    var receivedBody: Data? { get }
    /// Keeps what was written for a later resume and returns where it is; `nil` for a sink that cannot
    /// be resumed. Called from any thread.
    func keepForResume() -> String?
}

extension ResponseSink {
    /// `nil`: the body is not kept.
    var receivedBody: Data? { nil }
    /// `nil`: nothing to resume from.
    func keepForResume() -> String? { nil }
}

/// Collects the body in memory, sized from `Content-Length` when known.
final class MemorySink: ResponseSink, @unchecked Sendable {
    private(set) var data = Data()

    func begin(_ head: ResponseHead) throws(SluiceError) {
        if let length = head.expectedContentLength, length > 0, length <= 256 << 20 {
            data.reserveCapacity(Int(length))
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        data.append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    func shouldPause() -> Bool { false }

    func reset() throws(SluiceError) { data = Data() }

    var receivedBody: Data? { data.isEmpty ? nil : data }
}

/// Writes the body to a file descriptor as it arrives.
final class FileSink: ResponseSink, @unchecked Sendable {
    /// The file the download is in: the resumed download's partial file, unless the answer was neither
    /// its continuation nor the whole resource (an error status), which gets a file of its own.
    var path: String { shared.withLock { $0.path } }
    /// Whether a failed or cancelled download keeps its partial file (for resume data).
    var keepsPartialFile: Bool {
        get { shared.withLock { $0.keepsPartialFile } }
        set { shared.withLock { $0.keepsPartialFile = newValue } }
    }
    /// Keeps the partial file when the download fails or is cancelled, and returns its path.
    func keepForResume() -> String? {
        shared.withLock { state in
            state.keepsPartialFile = true
            return state.path
        }
    }
    /// Read from other threads while the engine writes (cancelling with resume data).
    private let shared: Locked<(path: String, keepsPartialFile: Bool)>
    /// The file given at the start, and the bytes it held then: every response (after an authentication
    /// round, say) is decided against these.
    private let givenPath: String
    /// Bytes already in the file when resuming; the answer is then expected as `206` from there.
    let resumeOffset: Int64
    private var descriptor: Int32 = -1
    private(set) var bytesWritten: Int64 = 0
    /// Whether this response's body is thrown away: a `416` saying the partial file is whole already.
    private var discardsBody = false

    init(path: String, resumeOffset: Int64) {
        self.shared = Locked((path, false))
        self.givenPath = path
        self.resumeOffset = resumeOffset
    }

    deinit { closeFile() }

    /// A new file name in the temporary directory for a download.
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-download-\(UUID().uuidString)").path
    }

    func begin(_ head: ResponseHead) throws(SluiceError) {
        closeFile()
        bytesWritten = 0
        discardsBody = false
        // An earlier response of this task (a 401 before its retry) may have had a file of its own.
        let earlier = shared.withLock { state -> String? in
            defer { state.path = givenPath }
            return state.path == givenPath ? nil : state.path
        }
        if let earlier { unlink(earlier) }
        var appending = false
        if resumeOffset > 0 {
            switch head.statusCode {
            case 206:
                // It must continue exactly where the file ends.
                if let start = head.contentRange?.first, start != resumeOffset {
                    // The file is untouched: it stays for another try.
                    keepsPartialFile = true
                    throw SluiceError(
                        .downloadFailed, "the server resumed from byte \(start), not from byte \(resumeOffset) where the file ends")
                }
                appending = true
            case 200:
                // A server that ignores Range (or whose resource changed, with If-Range) sends the whole
                // body: the file starts over.
                break
            case 416 where head.contentRange?.length == resumeOffset:
                // The partial file is the whole resource already.
                discardsBody = true
                return
            default:
                // Another answer (an error status): delivered in a file of its own, the partial file left
                // as it is for another try.
                let own = Self.temporaryPath()
                shared.withLock { $0.path = own }
            }
        }
        let path = self.path
        descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC), 0o644)
        guard descriptor >= 0 else {
            throw SluiceError(.downloadFailed, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
    }

    func shouldPause() -> Bool { false }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        if discardsBody { return }
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw SluiceError(.downloadFailed, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += count
        }
        bytesWritten += Int64(bytes.count)
    }

    func reset() throws(SluiceError) {
        closeFile()
        bytesWritten = 0
    }

    /// Flushes and closes the file.
    func closeFile() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }
}

/// Hands the body to a ``ByteStream`` consumer.
final class StreamSink: ResponseSink, @unchecked Sendable {
    let buffer: StreamBuffer
    let onResponse: @Sendable (HTTPResponse) -> Void

    init(buffer: StreamBuffer, onResponse: @escaping @Sendable (HTTPResponse) -> Void) {
        self.buffer = buffer
        self.onResponse = onResponse
    }

    func begin(_ head: ResponseHead) throws(SluiceError) { onResponse(head.makeResponse()) }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) { buffer.append(bytes) }

    func shouldPause() -> Bool { buffer.pauseIfFull() }

    func reset() throws(SluiceError) {}
}
