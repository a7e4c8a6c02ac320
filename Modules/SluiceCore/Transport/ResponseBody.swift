import Foundation

/// A response body as an ``HTTPTransport`` delivered it, matching the ``ResponseBodyDestination`` asked for.
public enum ResponseBody: Sendable {
    /// The whole body, content codings removed.
    case data(Data)
    /// The file the body was moved to.
    case file(URL)
    /// The body still arriving.
    case stream(ResponseBodyStream)

    /// The bytes of a body collected in memory, `nil` for a file or a stream.
    public var data: Data? {
        guard case .data(let data) = self else { return nil }
        return data
    }

    /// Where a downloaded body is, `nil` for memory or a stream.
    public var fileURL: URL? {
        guard case .file(let url) = self else { return nil }
        return url
    }
}
