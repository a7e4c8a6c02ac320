import Foundation

/// A response body in a pipeline: whole in memory, in a file, or still arriving as a stream.
///
/// A layer that answers picks whichever form it holds; the session delivers any form to what the
/// caller asked for (``HTTPLayerContext/destination``): bytes into memory, a file or a stream; a file
/// read into memory or a stream, or copied into the caller's destination (the layer's file is never
/// moved or removed); a stream collected or written out. A layer that wants to see a body as it arrives
/// wraps it with ``observed(onChunk:onEnd:)``.
public struct HTTPLayerBody: Sendable {
    /// What the body holds.
    public enum Content: Sendable {
        /// The whole body.
        case data(Data)
        /// The body in a file.
        case file(URL)
        /// The body as it arrives.
        case stream(ResponseBodyStream)
    }

    /// The body's bytes, or where they are.
    public var content: Content {
        switch stored {
        case .data(let data): .data(data)
        case .file(let location): .file(location.url)
        case .stream(let stream): .stream(stream)
        }
    }
    /// ``content`` with a file's URL in a box: Foundation's `URL` has a layout known only at run time,
    /// and a body holding one directly had every copy of it (and of each answer holding it) made through
    /// run-time type metadata.
    private let stored: Stored

    private enum Stored: Sendable {
        case data(Data)
        case file(FileLocation)
        case stream(ResponseBodyStream)
    }

    private final class FileLocation: Sendable {
        let url: URL
        init(_ url: URL) { self.url = url }
    }
    /// Who sees the body as it is delivered, in the order they were added.
    package private(set) var observers: [Observer] = []
    /// The session's own storage behind ``content`` (its temporary download file, its stream's buffer),
    /// which it may take over instead of copying; `nil` for a body a layer made.
    package let owner: (any AnyObject & Sendable)?

    /// One observer's handlers.
    package struct Observer: Sendable {
        package let onChunk: @Sendable (Data) -> Void
        package let onEnd: @Sendable (Result<Void, SluiceError>) -> Void
    }

    package init(_ content: Content, owner: (any AnyObject & Sendable)?) {
        switch content {
        case .data(let data): stored = .data(data)
        case .file(let url): stored = .file(FileLocation(url))
        case .stream(let stream): stored = .stream(stream)
        }
        self.owner = owner
    }

    /// No body.
    public static var empty: HTTPLayerBody { HTTPLayerBody(.data(Data()), owner: nil) }

    /// The whole body, `bytes`.
    public static func data(_ bytes: Data) -> HTTPLayerBody { HTTPLayerBody(.data(bytes), owner: nil) }

    /// The body in the file at `url`, which the session reads (or copies into the caller's destination)
    /// and leaves in place. Reading it fails the call with ``SluiceError/Code/downloadFailed`` when the
    /// file cannot be read.
    public static func file(_ url: URL) -> HTTPLayerBody { HTTPLayerBody(.file(url), owner: nil) }

    /// The body as `stream` delivers it. The session reads it once; cancelling the call stops the reading.
    public static func stream(_ stream: ResponseBodyStream) -> HTTPLayerBody { HTTPLayerBody(.stream(stream), owner: nil) }

    /// The bytes of a whole body, `nil` for a file or a stream.
    public var data: Data? {
        guard case .data(let data) = stored else { return nil }
        return data
    }

    /// This body, with `onChunk` called for each part as it is delivered and `onEnd` once at its end
    /// (with the error that ended it, if one did). A whole body is one chunk; a file is read in chunks.
    /// Both run on the task delivering the body, never on a session's engine thread.
    ///
    /// - Parameters:
    ///   - onChunk: Called with each part, in order.
    ///   - onEnd: Called once, after the last part, or with the error that ended the body.
    public func observed(
        onChunk: @escaping @Sendable (Data) -> Void, onEnd: @escaping @Sendable (Result<Void, SluiceError>) -> Void
    ) -> HTTPLayerBody {
        var copy = self
        copy.observers.append(Observer(onChunk: onChunk, onEnd: onEnd))
        return copy
    }

    /// Tells the observers of a part.
    package func notify(chunk: Data) {
        for observer in observers { observer.onChunk(chunk) }
    }

    /// Tells the observers of the end.
    package func notify(end: Result<Void, SluiceError>) {
        for observer in observers { observer.onEnd(end) }
    }

    /// Reads the whole body into memory (telling the observers as it goes): for a layer that needs
    /// every byte before it answers, a cache storing a body, say.
    ///
    /// - Parameter limit: The most bytes to hold. Default 64 MiB.
    /// - Throws: ``SluiceError/Code/downloadFailed`` when a file cannot be read or the body is longer
    ///   than `limit`; what a stream ends with.
    public func collected(limit: Int = 64 << 20) async throws(SluiceError) -> Data {
        var result = Data()
        try await forEachChunk { (chunk, _) throws(SluiceError) in
            guard result.count + chunk.count <= limit else {
                throw SluiceError(.downloadFailed, "the body is longer than \(limit) bytes")
            }
            result.append(chunk)
        }
        return result
    }

    /// Calls `body` with each part in order (telling the observers), then tells the observers of the
    /// end; `total` is the body's length when known.
    ///
    /// - Throws: What `body` throws; ``SluiceError/Code/downloadFailed`` for a file that cannot be read;
    ///   what a stream ends with.
    package func forEachChunk(
        _ body: (Data, _ total: Int64?) async throws(SluiceError) -> Void
    ) async throws(SluiceError) {
        do throws(SluiceError) {
            switch content {
            case .data(let data):
                notify(chunk: data)
                try await body(data, Int64(data.count))
            case .file(let url):
                var info = stat()
                let total: Int64? = stat(url.path, &info) == 0 ? Int64(info.st_size) : nil
                guard let handle = FileHandle(forReadingAtPath: url.path) else {
                    throw SluiceError(.downloadFailed, "cannot open \(url.path) for reading")
                }
                defer { try? handle.close() }
                while true {
                    let chunk: Data
                    do {
                        guard let read = try handle.read(upToCount: 1 << 20), !read.isEmpty else { break }
                        chunk = read
                    } catch {
                        throw SluiceError(.downloadFailed, "cannot read \(url.path): \(error)")
                    }
                    notify(chunk: chunk)
                    try await body(chunk, total)
                }
            case .stream(let stream):
                do {
                    for try await chunk in stream {
                        notify(chunk: chunk)
                        try await body(chunk, nil)
                    }
                } catch let error as SluiceError {
                    throw error
                } catch {
                    throw SluiceError(.transportFailed, "the body stream failed: \(error)")
                }
            }
        } catch {
            notify(end: .failure(error))
            throw error
        }
        notify(end: .success(()))
    }
}
