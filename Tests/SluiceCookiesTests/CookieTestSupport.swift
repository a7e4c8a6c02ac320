import Foundation
import SluiceCookies

/// The time every table test runs at.
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

/// A URL from a literal.
func testURL(_ text: String) -> URL { URL(string: text)! }

/// The header fields of a response: each pair is one field.
func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
    HTTPHeaders(pairs.map { try! HTTPHeader(name: $0.0, value: $0.1) })
}

/// What a parsed cookie is expected to hold (its creation and last access times are the parse time).
struct ExpectedCookie: Sendable, CustomStringConvertible {
    var name = "a"
    var value = "b"
    var domain = "www.example.com"
    var hostOnly = true
    var path = "/a/b"
    /// Seconds after ``t0``; `nil` for a session cookie.
    var expiresIn: TimeInterval?
    /// An absolute expiry time, when given (wins over `expiresIn`).
    var expiresAt: Date?
    var secure = false
    var httpOnly = false
    var sameSite = HTTPCookie.SameSite.unspecified

    var expires: Date? { expiresAt ?? expiresIn.map { t0.addingTimeInterval($0) } }

    var description: String { "\(name)=\(value) \(domain)\(hostOnly ? "" : "+") \(path)" }

    /// Whether `cookie` holds these fields.
    func matches(_ cookie: HTTPCookie) -> Bool {
        cookie.name == name && cookie.value == value && cookie.domain == domain && cookie.hostOnly == hostOnly
            && cookie.path == path && cookie.expires == expires && cookie.secure == secure
            && cookie.httpOnly == httpOnly && cookie.sameSite == sameSite && cookie.creation == t0
            && cookie.lastAccess == t0
    }
}
