/// An HTTP request method.
///
/// Methods compare exactly as written (HTTP methods are case-sensitive); the standard ones are
/// available as static members. Use ``init(validating:)`` for methods that come from input: it
/// refuses anything that is not an HTTP token.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method as sent on the request line, for example `GET`.
    public let rawValue: String

    /// Creates a method without checking it, as constants are made. Prefer ``init(validating:)`` for
    /// untrusted input, which fails at once.
    ///
    /// An unchecked method never reaches the wire unless it is a token: every request is checked where
    /// it enters the transport (``HTTPRequest/validate()``'s method rule), and one whose method is not a
    /// token fails with ``SluiceError/Code/invalidMethod`` before a connection is made. This initializer
    /// stays non-failable so that `HTTPMethod(rawValue: "PROPFIND")` and the literals read as constants.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method after checking that it is a non-empty HTTP token.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidMethod`` when `method` is empty
    ///   or holds a character outside the HTTP token set.
    public init(validating method: String) throws(SluiceError) {
        guard HTTPToken.isToken(method) else {
            throw SluiceError(.invalidMethod, "invalid HTTP method \(method.debugDescription)")
        }
        self.rawValue = method
    }

    /// `GET`
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// `CONNECT`
    public static let connect = HTTPMethod(rawValue: "CONNECT")

    /// Whether the method is idempotent by RFC 9110 (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), and so
    /// safe to retry.
    public var isIdempotent: Bool {
        // The methods as written almost always: answered without making a new string (the transport
        // asks for every request it sends).
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": return true
        case "POST", "PATCH", "CONNECT": return false
        default: break
        }
        switch rawValue.uppercased() {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": return true
        default: return false
        }
    }

    /// The method name.
    public var description: String { rawValue }
}

extension HTTPMethod: ExpressibleByStringLiteral {
    /// Creates a method from a literal such as `"PROPFIND"`. The literal is not checked; a method that
    /// is not a token is refused by ``HTTPRequest/validate()`` and by the transport before sending.
    public init(stringLiteral value: String) { self.rawValue = value }
}
