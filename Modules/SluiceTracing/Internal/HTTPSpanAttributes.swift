import Foundation
import SluiceCore
import Tracing

/// The OpenTelemetry HTTP client attributes of a request and its answer, by the semantic conventions'
/// names (`http.request.method`, `url.full`, `server.address`, `server.port`,
/// `http.response.status_code`, `network.protocol.version`, `error.type`).
enum HTTPSpanAttributes {
    /// The methods the conventions name; any other is reported as `_OTHER`, its spelling in
    /// `http.request.method_original`.
    private static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]

    /// The span name the conventions give a client span: the method (`_OTHER` as `HTTP`).
    static func spanName(_ request: HTTPRequest) -> String {
        knownMethods.contains(request.method.rawValue) ? request.method.rawValue : "HTTP"
    }

    /// The request's attributes: method, full URL without credentials, server address and port.
    static func request(_ request: HTTPRequest, into attributes: inout SpanAttributes) {
        let method = request.method.rawValue
        if knownMethods.contains(method) {
            attributes["http.request.method"] = method
        } else {
            attributes["http.request.method"] = "_OTHER"
            attributes["http.request.method_original"] = method
        }
        attributes["url.full"] = RequestTarget.redacted(request.url)
        if let host = request.url.host {
            attributes["server.address"] = host
        }
        if let port = request.url.port ?? defaultPort(request.url.scheme) {
            attributes["server.port"] = port
        }
    }

    /// The answer's attributes: the status code, the protocol version (`1.0`, `1.1`, `2`, `3`) for an
    /// answer from the network, where it came from, and `error.type` (the status code) for a status of
    /// 400 or more.
    static func response(_ answer: HTTPLayerResponse, into attributes: inout SpanAttributes) {
        attributes["http.response.status_code"] = answer.response.statusCode
        if answer.source.usedNetwork {
            attributes["network.protocol.version"] = protocolVersion(answer.response.httpVersion)
        }
        attributes["sluice.response.source"] = answer.source.description
        if answer.response.statusCode >= 400 {
            attributes["error.type"] = String(answer.response.statusCode)
        }
    }

    /// The version as the conventions write it.
    static func protocolVersion(_ version: HTTPVersion) -> String {
        switch version {
        case .http1_0: "1.0"
        case .http1_1: "1.1"
        case .http2: "2"
        case .http3: "3"
        }
    }

    private static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}
