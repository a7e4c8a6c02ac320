import Foundation
import SluiceCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a transfer's (decoded) response body goes. Written on the engine thread only; read by the
/// completion after the transfer ended (the engine's hand-off orders the two).
protocol ResponseSink: AnyObject, Sendable {
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
    /// Bytes of the resource the destination held before this response's body (a resumed download's
    /// partial file, when the server continues it): progress counts from there.
    var bytesAlreadyHeld: Int64 { get }
    /// Stops taking bytes and keeps what was written for a later resume; returns the file and its
    /// length, or `nil` for a sink that cannot be resumed. Called from any thread; every write after
    /// it fails, so the file stays exactly as long as returned.
    func freezeForResume() -> FrozenPartialFile?
}

/// A download's partial file as it was when the download stopped for resume data.
struct FrozenPartialFile: Equatable {
    let path: String
    let length: Int64
    let modified: timespec

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.path == rhs.path && lhs.length == rhs.length
            && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
    }
}

extension ResponseSink {
    /// `nil`: the body is not kept.
    var receivedBody: Data? { nil }
    /// None.
    var bytesAlreadyHeld: Int64 { 0 }
    /// `nil`: nothing to resume from.
    func freezeForResume() -> FrozenPartialFile? { nil }
}

/// Where a call's body goes, by kind: what the pipeline's exchange and delivery tell apart.
enum CallSink: Sendable {
    case memory(MemorySink)
    case file(FileSink)
    case stream(StreamSink)

    /// The sink the transfers write to.
    var responseSink: any ResponseSink {
        switch self {
        case .memory(let sink): sink
        case .file(let sink): sink
        case .stream(let sink): sink
        }
    }

    /// What the caller asked the body to become.
    var destination: HTTPLayerContext.Destination {
        switch self {
        case .memory: .memory
        case .file: .file
        case .stream: .stream
        }
    }

    /// The stream's buffer, for a streamed call.
    var streamBuffer: StreamBuffer? {
        guard case .stream(let sink) = self else { return nil }
        return sink.buffer
    }
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
///
/// The file's state is shared with other threads through one lock: the engine writes under it, and a
/// cancel for resume data freezes it under it, so no byte lands after the length the resume data names.
final class FileSink: ResponseSink, @unchecked Sendable {
    private struct Shared {
        /// The file the body goes to.
        var path: String
        /// Whether a failed or cancelled download keeps its partial file (for resume data).
        var keepsPartialFile = false
        /// Whether writes are refused: the download was cancelled for resume data.
        var frozen = false
        /// The open file, or -1.
        var descriptor: Int32 = -1
        /// The file's length: the bytes it held when appending, plus those written.
        var length: Int64 = 0
        /// Whether this response continues or restarts the resource (a 200 or 206), so its file can be
        /// resumed: an error status's body cannot.
        var resumable = false
    }

    /// The file the download is in: the resumed download's partial file, unless the answer was neither
    /// its continuation nor the whole resource (an error status), which gets a file of its own.
    var path: String { shared.withLock { $0.path } }
    /// Whether a failed or cancelled download keeps its partial file (for resume data).
    var keepsPartialFile: Bool {
        get { shared.withLock { $0.keepsPartialFile } }
        set { shared.withLock { $0.keepsPartialFile = newValue } }
    }
    private let shared: Locked<Shared>
    /// The file given at the start, and the bytes it held then: every response (after an authentication
    /// round, say) is decided against these.
    private let givenPath: String
    /// Bytes already in the file when resuming; the answer is then expected as `206` from there.
    let resumeOffset: Int64
    /// Whether this response's body is thrown away: a `416` saying the partial file is whole already.
    private var discardsBody = false
    /// Whether this response's body is appended to the partial file (a `206` continuing it).
    private var appending = false

    init(path: String, resumeOffset: Int64) {
        self.shared = Locked(Shared(path: path))
        self.givenPath = path
        self.resumeOffset = resumeOffset
    }

    deinit { closeFile() }

    /// A new file name in the temporary directory for a download.
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-download-\(UUID().uuidString)").path
    }

    var bytesAlreadyHeld: Int64 { appending ? resumeOffset : 0 }

    /// Whether the last response continued the partial file (a `206`) or said it was whole (a `416`).
    /// Read after the transfer ended.
    var continuedPartialFile: Bool { appending || discardsBody }

    func freezeForResume() -> FrozenPartialFile? {
        shared.withLock { state -> FrozenPartialFile? in
            guard !state.frozen, state.resumable, state.descriptor >= 0 else { return nil }
            var info = stat()
            guard fstat(state.descriptor, &info) == 0 else { return nil }
            state.frozen = true
            state.keepsPartialFile = true
            return FrozenPartialFile(path: state.path, length: state.length, modified: info.st_mtim)
        }
    }

    func begin(_ head: ResponseHead) throws(SluiceError) {
        closeFile()
        discardsBody = false
        appending = false
        // An earlier response of this task (a 401 before its retry) may have had a file of its own.
        let earlier = shared.withLock { state -> String? in
            defer { state.path = givenPath }
            return state.path == givenPath ? nil : state.path
        }
        if let earlier { unlink(earlier) }
        var resumable = head.statusCode == 200
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
                resumable = true
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
        let (path, appending) = (self.path, self.appending)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC), 0o644)
        guard descriptor >= 0 else {
            throw SluiceError(.downloadFailed, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        shared.withLock { state in
            state.descriptor = descriptor
            state.length = appending ? resumeOffset : 0
            state.resumable = resumable
        }
    }

    func shouldPause() -> Bool { false }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        if discardsBody { return }
        try shared.withLock { (state) throws(SluiceError) in
            guard !state.frozen else {
                throw SluiceError(.cancelled, "the download was cancelled for resume data")
            }
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(state.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SluiceError(.downloadFailed, "cannot write \(state.path): \(String(cString: strerror(errno)))")
                }
                offset += count
                state.length += Int64(count)
            }
        }
    }

    func reset() throws(SluiceError) {
        closeFile()
    }

    /// Flushes and closes the file.
    func closeFile() {
        shared.withLock { state in
            if state.descriptor >= 0 {
                close(state.descriptor)
                state.descriptor = -1
            }
        }
    }
}

/// Hands the body to a ``ByteStream`` consumer.
final class StreamSink: ResponseSink, @unchecked Sendable {
    /// The call the stream belongs to, set before the call starts; weak, as the call holds the sink.
    final class CallReference: @unchecked Sendable {
        weak var call: PipelineCall?
    }

    let buffer: StreamBuffer
    let reference = CallReference()

    init(limit: Int) {
        let reference = self.reference
        buffer = StreamBuffer(
            limit: limit,
            resumeTransfer: { reference.call?.streamCanContinue() },
            cancelTransfer: { reference.call?.task.cancel() })
    }

    /// The body begins: its hop's head is handed to the call.
    func begin(_ head: ResponseHead) throws(SluiceError) { reference.call?.streamHopEvent(.success(()), ended: nil) }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) { buffer.append(bytes) }

    func shouldPause() -> Bool { buffer.pauseIfFull() }

    func reset() throws(SluiceError) {}
}
