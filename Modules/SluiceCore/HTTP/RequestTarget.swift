import Foundation

/// What a message or a log line names a request by: its method and URL, without the URL's user name
/// and password.
///
/// ```swift
/// RequestTarget(method: .get, url: URL(string: "https://user:secret@api.example.com/v1/items")!).description
/// // "GET https://api.example.com/v1/items"
/// ```
public struct RequestTarget: Sendable, Hashable, CustomStringConvertible {
    /// The method, when known (an error about a response alone has none).
    public var method: HTTPMethod?
    /// The URL, credentials included; ``description`` leaves them out.
    public var url: URL

    /// Names a request by `method` (default `nil`: the URL alone) and `url`.
    public init(method: HTTPMethod? = nil, url: URL) {
        self.method = method
        self.url = url
    }

    /// Names `request`.
    public init(_ request: HTTPRequest) { self.init(method: request.method, url: request.url) }

    /// The request's target for a message about `response`: the request when known, else the
    /// response's URL; `nil` when neither is known.
    public init?(request: HTTPRequest?, response: HTTPResponse?) {
        if let request {
            self.init(request)
        } else if let url = response?.url {
            self.init(url: url)
        } else {
            return nil
        }
    }

    /// `METHOD URL`, the URL without user name and password.
    public var description: String {
        let text = Self.redacted(url)
        guard let method else { return text }
        return "\(method.rawValue) \(text)"
    }

    /// `url` as text without its user name and password.
    public static func redacted(_ url: URL) -> String {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.url?.absoluteString ?? "\(url.scheme ?? "?")://\(url.host ?? "?")"
    }
}
