import Foundation
import HTTPTypes
import SluiceCore

extension SluiceCore.HTTPRequest {
    /// The request `request` describes, with `body`, ready for any ``HTTPTransport``.
    ///
    /// The URL is `scheme://authority` followed by the path pseudo-header field (path and query), its
    /// escapes kept as written; the method keeps its spelling (methods beyond the standard ones too); the
    /// header fields keep their order, repetitions and spelling. The request's other settings (timeout,
    /// cache policy, redirect policy) take their defaults.
    ///
    /// - Parameters:
    ///   - request: A swift-http-types request with scheme, authority and path.
    ///   - body: The body. Default `.none`.
    /// - Throws: ``SluiceError/Code/httpTypesUnsupported`` for a request without scheme, authority or
    ///   path (`CONNECT`), with a path that does not start with `/` (`OPTIONS *`), or with an
    ///   extended-`CONNECT` protocol;
    ///   ``SluiceError/Code/invalidURL`` for a scheme other than `http` or `https` or parts that make no
    ///   URL; ``SluiceError/Code/invalidHeaderValue`` as `HTTPHeaders.init(_:)` (from `HTTPFields`).
    public init(_ request: HTTPTypes.HTTPRequest, body: SluiceCore.HTTPBody = .none) throws(SluiceError) {
        guard request.extendedConnectProtocol == nil else {
            throw SluiceError(.httpTypesUnsupported, "an extended CONNECT request (:protocol \(request.extendedConnectProtocol ?? "")) cannot be sent")
        }
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path else {
            throw SluiceError(
                .httpTypesUnsupported,
                "a \(request.method.rawValue) request without :scheme, :authority and :path has no URL to send to")
        }
        let lowered = scheme.lowercased()
        guard lowered == "http" || lowered == "https" else {
            throw SluiceError(.invalidURL, "the scheme \(scheme.debugDescription) is not http or https")
        }
        guard path.utf8.first == UInt8(ascii: "/") else {
            throw SluiceError(
                .httpTypesUnsupported, "the request target \(path.debugDescription) is not a path (asterisk form is not sent)")
        }
        try self.init(
            urlString: "\(scheme)://\(authority)\(path)",
            method: SluiceCore.HTTPMethod(rawValue: request.method.rawValue),
            headers: try SluiceCore.HTTPHeaders(request.headerFields), body: body)
    }
}

extension HTTPTypes.HTTPRequest {
    /// The head of `request` as swift-http-types has it: the method, `:scheme`, `:authority` (host and
    /// port) and `:path` (path and query, escapes as written) pseudo-header fields, and the header fields
    /// in order, repeated fields and spelling kept.
    ///
    /// What swift-http-types has no place for is left out: the body (send it beside the head), the URL's
    /// user name and password (never part of `:authority`) and fragment (never sent), and the request's
    /// timeout and policies.
    ///
    /// - Throws: ``SluiceError/Code/invalidMethod`` for a method that is not an HTTP token;
    ///   ``SluiceError/Code/invalidURL`` for a URL that is not absolute with a host.
    public init(_ request: SluiceCore.HTTPRequest) throws(SluiceError) {
        guard let method = HTTPTypes.HTTPRequest.Method(request.method.rawValue) else {
            throw SluiceError(.invalidMethod, "the method \(request.method.rawValue.debugDescription) is not an HTTP token", request: request)
        }
        guard let parts = RequestURLParts(request.url) else {
            throw SluiceError(.invalidURL, "\(RequestTarget.redacted(request.url)) is not an absolute URL with a host", request: request)
        }
        self.init(
            method: method, scheme: parts.scheme, authority: parts.authority, path: parts.path,
            headerFields: HTTPFields(request.headers))
    }
}
