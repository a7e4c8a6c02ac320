#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif


/// A rewindable ``BodyStream`` that reads a file, or a byte range of it, in chunks through a file
/// descriptor. Memory use does not depend on the file's size.
///
/// The file is checked when the stream is made and opened at the first read. A file that shrinks
/// while it is read ends the stream with ``SluiceError/Code/bodyLengthMismatch``.
public final class FileBodyStream: BodyStream {
    /// The file's path.
    public let path: String
    /// The bytes of the file this stream produces.
    public let range: Range<UInt64>

    private struct State {
        var descriptor: Int32 = -1
        var position: UInt64
    }
    private let state: Locked<State>

    /// Creates a stream over the file at `path`, or over `range` of it.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - range: The bytes to send. Default `nil`: the whole file.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/bodyFileNotFound`` (nothing at `path`),
    ///   ``SluiceError/Code/bodyNotAFile`` (a directory, device or socket),
    ///   ``SluiceError/Code/bodyFileUnreadable`` (no permission, or another `stat` or `open` failure), or
    ///   ``SluiceError/Code/bodyInvalidRange`` (the range reaches past the end of the file).
    public init(path: String, range: Range<UInt64>? = nil) throws(SluiceError) {
        let size = try Self.regularFileSize(at: path)
        let range = range ?? 0..<size
        guard range.upperBound <= size else {
            throw SluiceError(
                .bodyInvalidRange, "range \(range) reaches past the end of \(path) (\(size) bytes)")
        }
        // Fail now rather than mid-upload when the file cannot be opened.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.openFailure(path, errno) }
        self.path = path
        self.range = range
        self.state = Locked(State(descriptor: descriptor, position: range.lowerBound))
    }

    deinit { close() }

    /// The number of bytes in ``range``.
    public var contentLength: Int64? { Int64(range.upperBound - range.lowerBound) }

    /// Reads the next bytes of the range with `pread`.
    ///
    /// - Throws: ``SluiceError/Code/bodyFileUnreadable`` when the file cannot be opened or read again,
    ///   ``SluiceError/Code/bodyLengthMismatch`` when it ends before the range does.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        try state.withLock { (state) throws(SluiceError) -> Int in
            let remaining = range.upperBound - state.position
            guard remaining > 0, buffer.count > 0, let base = buffer.baseAddress else { return 0 }
            if state.descriptor < 0 {
                state.descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard state.descriptor >= 0 else { throw Self.openFailure(path, errno) }
            }
            let wanted = Int(min(UInt64(buffer.count), remaining))
            while true {
                let count = pread(state.descriptor, base, wanted, off_t(state.position))
                if count > 0 {
                    state.position += UInt64(count)
                    return count
                }
                if count == 0 {
                    throw SluiceError(
                        .bodyLengthMismatch,
                        "\(path) ended at byte \(state.position), before the \(range.upperBound) expected")
                }
                let code = errno
                if code == EINTR { continue }
                throw SluiceError(
                    .bodyFileUnreadable, "cannot read \(path): \(String(cString: strerror(code)))")
            }
        }
    }

    /// `true`.
    public var isRewindable: Bool { true }

    /// Starts over at the range's first byte; never throws.
    public func rewind() throws(SluiceError) {
        state.withLock { $0.position = range.lowerBound }
    }

    /// Closes the file descriptor; a later read opens the file again.
    public func close() {
        state.withLock { state in
            if state.descriptor >= 0 {
                _ = closeDescriptor(state.descriptor)
                state.descriptor = -1
            }
        }
    }

    /// The length of a file body: the range's length, or the file's size.
    ///
    /// - Throws: As ``init(path:range:)``.
    static func length(ofFileAt path: String, range: Range<UInt64>?) throws(SluiceError) -> Int64 {
        let size = try regularFileSize(at: path)
        guard let range else { return Int64(size) }
        guard range.upperBound <= size else {
            throw SluiceError(.bodyInvalidRange, "range \(range) reaches past the end of \(path) (\(size) bytes)")
        }
        return Int64(range.upperBound - range.lowerBound)
    }

    private static func regularFileSize(at path: String) throws(SluiceError) -> UInt64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw SluiceError(.bodyFileNotFound, "no file at \(path)")
            }
            throw SluiceError(.bodyFileUnreadable, "cannot stat \(path): \(String(cString: strerror(code)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            let kind = (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw SluiceError(.bodyNotAFile, "\(path) is \(kind)")
        }
        return UInt64(info.st_size)
    }

    private static func openFailure(_ path: String, _ code: Int32) -> SluiceError {
        if code == ENOENT { return SluiceError(.bodyFileNotFound, "no file at \(path)") }
        return SluiceError(.bodyFileUnreadable, "cannot open \(path): \(String(cString: strerror(code)))")
    }
}

/// `close(2)`, under a name that does not clash with ``FileBodyStream/close()``.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #elseif canImport(Musl)
    Musl.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}
