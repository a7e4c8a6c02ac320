import Foundation
import SluiceCore

/// The multipart form that streams: parts are recorded when appended and produced only while the
/// body is sent, by a ``MultipartBodyStream``, so a form of any size uploads in constant memory.
///
/// The body is laid out as AFNetworking writes it: the first part starts `--<boundary>\r\n`, later
/// ones `\r\n--<boundary>\r\n`; each part is its header lines, a blank line and its body; the body
/// ends `\r\n--<boundary>--\r\n`. File parts carry `Content-Disposition: form-data; name="…";
/// filename="…"` and `Content-Type`; field parts carry only the disposition.
///
/// A form may be built from several threads at once; parts keep the order their appends finished in.
///
/// ```swift
/// let form = StreamingMultipartFormData()
/// form.appendPart(formData: Data("Ada".utf8), name: "name")
/// try form.appendPart(fileURL: URL(fileURLWithPath: "/tmp/photo.jpg"), name: "photo")
/// let request = try form.finalize(request)  // Content-Type, Content-Length and the body stream
/// ```
public final class StreamingMultipartFormData: MultipartFormData {
    private struct State {
        var parts: [MultipartPart] = []
        var throttle: MultipartThrottle?
    }

    /// The boundary between the parts. Default: ``MultipartBoundary/random()``.
    public let boundary: MultipartBoundary
    /// Where MIME types of files come from. Default ``MIMETypeTable/system``.
    public let mimeTypes: MIMETypeTable
    private let state = Locked(State())

    /// An empty form.
    ///
    /// - Parameters:
    ///   - boundary: The boundary. Default: a random one.
    ///   - mimeTypes: The extension table for files appended without a MIME type. Default
    ///     ``MIMETypeTable/system``.
    public init(boundary: MultipartBoundary = .random(), mimeTypes: MIMETypeTable = .system) {
        self.boundary = boundary
        self.mimeTypes = mimeTypes
    }

    /// Whether no part has been appended.
    public var isEmpty: Bool { state.withLock { $0.parts.isEmpty } }

    /// The number of parts.
    public var partCount: Int { state.withLock { $0.parts.count } }

    /// `multipart/form-data; boundary=<boundary>`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary.value)" }

    /// The exact length of the body, computed from the parts' sizes without reading them.
    public var contentLength: Int64 { makeBodyStream().length }

    /// The throttle set by ``throttleBandwidth(_:)``. Default `nil`.
    public var throttle: MultipartThrottle? { state.withLock { $0.throttle } }

    // MARK: Appending

    public func appendPart(fileURL: URL, name: String) throws(SluiceError) {
        try appendPart(
            fileURL: fileURL, name: name, fileName: fileURL.lastPathComponent,
            mimeType: mimeTypes.mimeType(forPath: fileURL.path))
    }

    public func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws(SluiceError) {
        guard fileURL.isFileURL else {
            throw SluiceError(.multipartNotAFileURL, "\(fileURL.absoluteString) is not a file URL")
        }
        let headers = try Self.headers(name: name, fileName: fileName, mimeType: mimeType)
        try appendPart(headers: headers, body: .file(path: fileURL.path))
    }

    public func appendPart(
        stream: any BodyStream, length: Int64, name: String, fileName: String, mimeType: String
    ) throws(SluiceError) {
        guard length >= 0 else {
            throw SluiceError(.multipartInvalidLength, "part \(name.debugDescription) declares a negative length (\(length))")
        }
        let headers = try Self.headers(name: name, fileName: fileName, mimeType: mimeType)
        append(MultipartPart(headers: headers, body: .stream(stream, length: length)))
    }

    public func appendPart(data: Data, name: String, fileName: String, mimeType: String) throws(SluiceError) {
        let headers = try Self.headers(name: name, fileName: fileName, mimeType: mimeType)
        append(MultipartPart(headers: headers, body: .data(data)))
    }

    public func appendPart(formData data: Data, name: String) {
        // An escaped disposition holds no character a header value refuses.
        let headers = (try? Self.headers(name: name, fileName: nil, mimeType: nil)) ?? HTTPHeaders()
        append(MultipartPart(headers: headers, body: .data(data)))
    }

    public func appendPart(headers: HTTPHeaders, body: HTTPBody) throws(SluiceError) {
        let partBody: MultipartPart.Body
        switch body {
        case .none:
            partBody = .data(Data())
        case .bytes(let data):
            partBody = .data(data)
        case .file(let path, let range):
            let file = try FileBodyStream(path: path, range: range)
            defer { file.close() }
            if let range, range.lowerBound > 0 {
                // A range that does not start at 0 is sent through its own stream.
                partBody = .stream(file, length: Int64(range.count))
            } else {
                partBody = .file(path: path, length: file.range.upperBound)
            }
        case .stream(let stream):
            guard let length = stream.contentLength, length >= 0 else {
                throw SluiceError(.multipartInvalidLength, "a stream part must declare its length")
            }
            partBody = .stream(stream, length: length)
        }
        append(MultipartPart(headers: headers, body: partBody))
    }

    public func throttleBandwidth(_ throttle: MultipartThrottle?) {
        state.withLock { $0.throttle = throttle }
    }

    // MARK: The body

    /// A new stream over the parts appended so far.
    public func makeBodyStream() -> MultipartBodyStream {
        let (parts, throttle) = state.withLock { ($0.parts, $0.throttle) }
        return MultipartBodyStream(parts: parts, boundary: boundary, throttle: throttle)
    }

    /// `request` carrying this form: `Content-Type: multipart/form-data; boundary=…`, the exact
    /// `Content-Length`, and the body as a ``MultipartBodyStream``. An empty form returns `request`
    /// unchanged, as AFNetworking does.
    public func finalize(_ request: HTTPRequest) -> HTTPRequest {
        guard !isEmpty else { return request }
        var request = request
        let stream = makeBodyStream()
        // Both values are ASCII without control characters.
        try? request.headers.set(name: "Content-Type", value: contentType)
        try? request.headers.set(name: "Content-Length", value: String(stream.length))
        request.body = .stream(stream)
        return request
    }

    // MARK: Helpers

    private func append(_ part: MultipartPart) {
        state.withLock { $0.parts.append(part) }
    }

    private static func headers(name: String, fileName: String?, mimeType: String?) throws(SluiceError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        try headers.set(name: "Content-Disposition", value: MultipartPart.disposition(name: name, fileName: fileName))
        if let mimeType { try headers.set(name: "Content-Type", value: mimeType) }
        return headers
    }
}
