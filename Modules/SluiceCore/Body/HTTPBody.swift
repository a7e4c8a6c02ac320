import Foundation

/// What a request sends as its body.
///
/// Bytes are sent as they are; a file is read while it is sent (never loaded whole); a stream is
/// pulled in chunks as the connection can take them, so a body of any size uses constant memory.
public enum HTTPBody: Sendable, CustomStringConvertible {
    /// No body.
    case none
    /// The given bytes. An empty `Data` is an empty body (`Content-Length: 0`), not no body.
    case bytes(Data)
    /// The file at `path`, or only the bytes in `range` of it. Default range: the whole file.
    case file(path: String, range: Range<UInt64>? = nil)
    /// A pull-based stream; its ``BodyStream/contentLength`` decides between `Content-Length` and
    /// chunked transfer coding.
    case stream(any BodyStream)

    /// The body's length when it is known without reading it: the byte count, the range's length, a
    /// file's size, a stream's declared length; `nil` for a stream of unknown length.
    ///
    /// - Throws: ``SluiceError`` for a file body whose file cannot be used (see ``FileBodyStream``).
    public func contentLength() throws(SluiceError) -> Int64? {
        switch self {
        case .none: 0
        case .bytes(let data): Int64(data.count)
        case .file(let path, let range): try FileBodyStream.length(ofFileAt: path, range: range)
        case .stream(let stream): stream.contentLength
        }
    }

    /// Whether there is a body at all (`.none` is the only kind without one).
    public var isPresent: Bool {
        if case .none = self { return false }
        return true
    }

    /// A stream that produces this body: a ``DataBodyStream`` for bytes and none, a
    /// ``FileBodyStream`` for a file, and the stream itself for a stream.
    ///
    /// - Throws: ``SluiceError`` for a file body whose file cannot be used.
    public func makeStream() throws(SluiceError) -> any BodyStream {
        switch self {
        case .none: DataBodyStream(Data())
        case .bytes(let data): DataBodyStream(data)
        case .file(let path, let range): try FileBodyStream(path: path, range: range)
        case .stream(let stream): stream
        }
    }

    /// A short description: the kind and its size when known.
    public var description: String {
        switch self {
        case .none: "none"
        case .bytes(let data): "\(data.count) bytes"
        case .file(let path, let range): range.map { "file \(path) [\($0.lowerBound)..<\($0.upperBound)]" } ?? "file \(path)"
        case .stream(let stream): stream.contentLength.map { "stream of \($0) bytes" } ?? "stream of unknown length"
        }
    }
}
