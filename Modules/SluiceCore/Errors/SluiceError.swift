import Foundation

/// The one error type Sluice throws and delivers.
///
/// Every failure carries a stable ``code`` to switch on, a human-readable ``message``, and whatever
/// context the caller needs to act on it: the ``request`` that failed, the ``response`` if one
/// arrived, the received ``body`` bytes (bounded by ``bodyLimit``), the ``library`` diagnostic of
/// libcurl, libxml2 or zlib when one of them reported the failure, and the ``underlying`` error that
/// caused this one.
///
/// Codes are stable strings of the form `area.reason`; see `docs/errors.md` for the full list.
///
/// ```swift
/// do {
///     try headers.add(name: "X-Token", value: userInput)
/// } catch let error where error.code == .invalidHeaderValue {
///     print(error.message)
/// }
/// ```
public struct SluiceError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The largest number of body bytes an error keeps (64 KiB). Longer bodies are cut to this size
    /// and ``isBodyTruncated`` is `true`.
    public static let bodyLimit = 64 * 1024

    /// The stable code that identifies what went wrong.
    public var code: Code
    /// A human-readable explanation of this particular failure. Not stable: do not parse it.
    public var message: String
    /// The request that failed, when the failure belongs to one. Default `nil`.
    public var request: HTTPRequest?
    /// The response received before the failure, when one arrived. Default `nil`.
    public var response: HTTPResponse?
    /// The received body bytes, at most ``bodyLimit`` of them. Default `nil`.
    public private(set) var body: Data?
    /// Whether ``body`` was cut to ``bodyLimit`` bytes. Default `false`.
    public private(set) var isBodyTruncated: Bool
    /// The diagnostic of the C library that reported the failure, when one did. Default `nil`.
    public var library: LibraryDiagnostic?
    /// The error that caused this one, when there is one. Default `nil`.
    public var underlying: (any Error & Sendable)?
    /// The body as a serializer decoded it despite the failure (for example the JSON error document
    /// of a 404), when it could. Default `nil`.
    public var decodedBody: (any Sendable)?
    /// How many attempts the request made before it failed, counting the first (1 when it was not
    /// retried), when a session manager that retries sent it; `nil` for a failure that belongs to no
    /// such request. Default `nil`.
    public var attempts: Int?
    /// For a download that stopped part way (a lost connection, a timeout, a stalled transfer), what
    /// resumes it from where it stopped, encoded: SluiceTransport's `ResumeData(resumeData:)` reads it,
    /// as URLSession's `NSURLSessionDownloadTaskResumeData` and Alamofire's `resumeData`. `nil` when
    /// nothing is worth resuming. Default `nil`.
    public var resumeData: Data?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The stable code.
    ///   - message: What went wrong, for people.
    ///   - request: The failing request. Default `nil`.
    ///   - response: The response received, if any. Default `nil`.
    ///   - body: The received body; bytes past ``bodyLimit`` are dropped. Default `nil`.
    ///   - library: The C library's own code and message. Default `nil`.
    ///   - underlying: The error that caused this one. Default `nil`.
    public init(
        _ code: Code,
        _ message: String,
        request: HTTPRequest? = nil,
        response: HTTPResponse? = nil,
        body: Data? = nil,
        library: LibraryDiagnostic? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.request = request
        self.response = response
        self.body = nil
        self.isBodyTruncated = false
        self.library = library
        self.underlying = underlying
        self.decodedBody = nil
        self.attempts = nil
        self.resumeData = nil
        setBody(body)
    }

    /// Replaces ``body``, keeping at most ``bodyLimit`` bytes and setting ``isBodyTruncated``.
    public mutating func setBody(_ data: Data?) {
        guard let data else {
            body = nil
            isBodyTruncated = false
            return
        }
        if data.count > Self.bodyLimit {
            body = Data(data.prefix(Self.bodyLimit))
            isBodyTruncated = true
        } else {
            body = data
            isBodyTruncated = false
        }
    }

    /// The underlying error as a ``SluiceError``, when it is one.
    public var underlyingSluiceError: SluiceError? { underlying as? SluiceError }

    /// `error` itself when it is a ``SluiceError``, else a new error with `code` whose message is
    /// `message` followed by the error's description, wrapping it in a ``ForeignError``: what a
    /// Sluice API throws when a closure it was given throws.
    ///
    /// - Parameters:
    ///   - error: The error a closure threw.
    ///   - code: The code for an error that is not a ``SluiceError``.
    ///   - message: What failed, without the error's description.
    ///   - request: The request it concerns. Default `nil`.
    public static func wrapping(
        _ error: any Error, as code: Code, _ message: String, request: HTTPRequest? = nil
    ) -> SluiceError {
        if let error = error as? SluiceError { return error }
        return SluiceError(code, "\(message): \(error)", request: request, underlying: ForeignError(error))
    }

    /// `code: message`, followed by the library diagnostic and the underlying error when present.
    public var description: String {
        var text = "\(code): \(message)"
        if let library { text += " [\(library)]" }
        if let underlying { text += " (caused by: \(underlying))" }
        return text
    }

    /// The description plus the request line, the response status, the body size and the attempts
    /// (URLs without their user name and password).
    public var debugDescription: String {
        var lines = [description]
        if let request { lines.append("request: \(RequestTarget(request))") }
        if let response { lines.append("response: \(response.statusCode) \(response.url.map(RequestTarget.redacted) ?? "")") }
        if let body { lines.append("body: \(body.count) bytes\(isBodyTruncated ? " (truncated)" : "")") }
        if let attempts { lines.append("attempts: \(attempts)") }
        return lines.joined(separator: "\n")
    }
}

extension SluiceError: LocalizedError {
    /// The ``message``, for Foundation's `localizedDescription`.
    public var errorDescription: String? { message }
}

extension SluiceError: CustomNSError {
    /// `"Sluice"`: the domain under which this error bridges to `NSError`.
    public static var errorDomain: String { "Sluice" }
    /// A stable number derived from ``code`` for `NSError` bridging (see ``Code/numericValue``).
    public var errorCode: Int { code.numericValue }
    /// The message, the stable code string (`SluiceErrorCode`) and, when present, the underlying error
    /// and the attempts (`SluiceAttempts`, an `Int`).
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, "SluiceErrorCode": code.rawValue]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        if let attempts { info["SluiceAttempts"] = attempts }
        return info
    }
}
