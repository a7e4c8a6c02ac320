/// The HTTP version a response arrived with.
public enum HTTPVersion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HTTP/1.0
    case http1_0 = "HTTP/1.0"
    /// HTTP/1.1
    case http1_1 = "HTTP/1.1"
    /// HTTP/2
    case http2 = "HTTP/2"
    /// HTTP/3
    case http3 = "HTTP/3"

    /// As written in a status line, for example `HTTP/1.1`.
    public var description: String { rawValue }
}
