import Foundation
import SluiceCore

/// What a stub answers: a head and a body (bytes, a file, or chunks that arrive over time), or a
/// failure, before the head or part way through the body.
///
/// The answer goes up the session's pipeline as a network answer would, so whatever the caller asked
/// for (bytes, a file, a stream) gets it, progress is reported as its bytes are delivered, redirects and
/// authentication rounds are followed, and the response serializers validate and decode it.
///
/// ```swift
/// stubs.stub(.get("https://api.example.com/items"), .json(#"[{"id": 1}]"#))
/// stubs.stub(.get("https://api.example.com/feed"), .chunks([Data("a\n".utf8), Data("b\n".utf8)], every: .milliseconds(50)))
/// stubs.stub(.get("https://api.example.com/big"), .failure(.connectionLost, after: Data(count: 4096)))
/// ```
public struct StubResponse: Sendable {
    enum Body: Sendable {
        case data(Data)
        case file(URL)
        case chunks([Data], interval: Duration)
    }

    /// The status code (for a failure before the head: none is sent).
    public var statusCode: Int
    /// The header fields. A body of known length without `Content-Length` gets one, as a server's would.
    public var headers: HTTPHeaders
    var body: Body
    /// The failure the answer ends with, and whether it comes after the head and body (`true`) or
    /// instead of them.
    var failure: (code: SluiceError.Code, message: String, afterBody: Bool)?
    /// How long the stub waits before the head. Default none.
    public var delay: Duration = .zero

    init(statusCode: Int, headers: HTTPHeaders, body: Body, failure: (code: SluiceError.Code, message: String, afterBody: Bool)? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.failure = failure
    }

    /// A response with `statusCode`, `headers` and `body`.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The header fields. Default none.
    ///   - body: The body. Default empty.
    public static func status(_ statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: headers, body: .data(body))
    }

    /// A `text/plain; charset=utf-8` response with `text`.
    ///
    /// - Parameters:
    ///   - text: The body.
    ///   - statusCode: The status code. Default 200.
    ///   - headers: More header fields. Default none.
    public static func text(_ text: String, statusCode: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: with(headers, contentType: "text/plain; charset=utf-8"), body: .data(Data(text.utf8)))
    }

    /// An `application/json` response whose body is `json`, as written.
    ///
    /// - Parameters:
    ///   - json: The body.
    ///   - statusCode: The status code. Default 200.
    ///   - headers: More header fields. Default none.
    public static func json(_ json: String, statusCode: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: with(headers, contentType: "application/json"), body: .data(Data(json.utf8)))
    }

    /// An `application/json` response whose body is `value` encoded by `encoder`.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - statusCode: The status code. Default 200.
    ///   - headers: More header fields. Default none.
    ///   - encoder: The encoder. Default a new `JSONEncoder`.
    /// - Throws: What `encoder` throws.
    public static func json<Value: Encodable>(
        encoding value: Value, statusCode: Int = 200, headers: HTTPHeaders = [:], encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(statusCode: statusCode, headers: with(headers, contentType: "application/json"), body: .data(try encoder.encode(value)))
    }

    /// A response whose body is the file at `url`, read when the stub answers (so it must still exist
    /// then). A file that cannot be read then fails the request with
    /// ``SluiceError/Code/downloadFailed``, as a broken download would.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - statusCode: The status code. Default 200.
    ///   - headers: The header fields. Default none.
    public static func file(_ url: URL, statusCode: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: headers, body: .file(url))
    }

    /// A response whose body arrives as `chunks`, `interval` apart (the first after the head), without
    /// `Content-Length`: a reader of a stream gets them one at a time, and a slow reader holds the next
    /// back as a slow reader of the network does.
    ///
    /// - Parameters:
    ///   - chunks: The parts of the body.
    ///   - interval: The time between parts. Default none.
    ///   - statusCode: The status code. Default 200.
    ///   - headers: The header fields. Default none.
    public static func chunks(_ chunks: [Data], every interval: Duration = .zero, statusCode: Int = 200, headers: HTTPHeaders = [:])
        -> StubResponse
    {
        StubResponse(statusCode: statusCode, headers: headers, body: .chunks(chunks, interval: interval))
    }

    /// A failure with `code` in place of a response (a refused connection, a name that does not resolve,
    /// a TLS failure: any code a transport can end with).
    ///
    /// - Parameters:
    ///   - code: The error's code, such as ``SluiceError/Code/cannotConnect``.
    ///   - message: The error's message. Default one naming the stub.
    public static func failure(_ code: SluiceError.Code, message: String? = nil) -> StubResponse {
        StubResponse(
            statusCode: 0, headers: [:], body: .data(Data()),
            failure: (code, message ?? "a stub failed the request with \(code)", afterBody: false))
    }

    /// A head, then the first bytes of the body, then a failure with `code`: a connection lost mid-body.
    /// A caller collecting the body gets the error; a stream reader gets `bytes` first, then the error.
    ///
    /// - Parameters:
    ///   - code: The error's code, such as ``SluiceError/Code/connectionLost``.
    ///   - bytes: The part of the body sent before the failure.
    ///   - statusCode: The status code. Default 200.
    ///   - headers: The header fields; a `Content-Length` larger than `bytes` makes the cut visible, as
    ///     on the network. Default none.
    ///   - message: The error's message. Default one naming the stub.
    public static func failure(
        _ code: SluiceError.Code, after bytes: Data, statusCode: Int = 200, headers: HTTPHeaders = [:], message: String? = nil
    ) -> StubResponse {
        StubResponse(
            statusCode: statusCode, headers: headers, body: .chunks([bytes], interval: .zero),
            failure: (code, message ?? "a stub failed the request with \(code) after \(bytes.count) body bytes", afterBody: true))
    }

    /// This response, sent after `delay` (measured against the request's timeout: a delay longer than
    /// it fails the request with ``SluiceError/Code/idleTimedOut`` once the timeout has passed).
    public func delayed(by delay: Duration) -> StubResponse {
        var delayed = self
        delayed.delay = delay
        return delayed
    }

    private static func with(_ headers: HTTPHeaders, contentType: String) -> HTTPHeaders {
        guard !headers.contains("Content-Type") else { return headers }
        var headers = headers
        // A constant, valid value.
        try? headers.add(name: "Content-Type", value: contentType)
        return headers
    }
}
