import Foundation
import Testing

@testable import SluiceCore

/// The scheme and host the transport checks before it sends, read from a URL's string: each row as
/// written, and the same answers Foundation's `scheme` and `host` give for every URL it parses.
@Suite("URLHead: a URL's scheme and host, read from its string")
struct URLHeadTests {
    static let rows: [(String, URLHead.Scheme, Bool)] = [
        ("http://example.com/", .http, true),
        ("HTTPS://example.com", .https, true),
        ("hTtP://example.com:8080/a?b#c", .http, true),
        ("http+unix://%2Ftmp%2Fs.sock/x", .httpUnix, true),
        ("HTTPS+UNIX://%2Fs/x", .httpsUnix, true),
        ("ftp://example.com/", .other, true),
        ("httpx://example.com/", .other, true),
        ("http:///path", .http, false),
        ("http://user@/path", .http, false),
        ("http://user:pw@host:80/", .http, true),
        ("http://a@b@host/", .http, true),
        ("http://:80/", .http, false),
        ("http://[::1]:8080/", .http, true),
        ("http://[]/", .http, false),
        ("http://?q", .http, false),
        ("http://#f", .http, false),
        ("http://h?q", .http, true),
        ("http:example.com", .http, false),
        ("http:/example.com", .http, false),
        ("http:", .http, false),
        ("http", .other, false),
        ("", .other, false),
        ("//example.com/", .other, true),
        ("//", .other, false),
        ("1http://x/", .other, false),
        ("ht tp://x/", .other, false),
        ("h\u{301}ttp://x/", .other, false),
    ]

    @Test("each string's scheme and host", arguments: rows)
    func row(_ text: String, _ scheme: URLHead.Scheme, _ hasHost: Bool) {
        let head = URLHead(text)
        #expect(head.scheme == scheme)
        #expect(head.hasHost == hasHost)
    }

    @Test("agrees with Foundation's scheme and host for every URL it parses")
    func agreesWithFoundation() throws {
        let strings = Self.rows.map(\.0) + [
            "https://user:secret@example.com:443/p/a/t/h?query=1&b=%20#frag",
            "http://%65xample.com/", "http://EXAMPLE.com./", "http://127.0.0.1:1/", "http://[fe80::1%25eth0]/",
            "https://xn--bcher-kva.example/", "HTTP+Unix://%2Fvar%2Frun%2Fd.sock/v1/x",
        ]
        for text in strings {
            guard let url = URL(string: text) else { continue }
            let head = URLHead(url.absoluteString)
            let expected: URLHead.Scheme =
                switch url.scheme?.lowercased() {
                case "http": .http
                case "https": .https
                case "http+unix": .httpUnix
                case "https+unix": .httpsUnix
                default: .other
                }
            #expect(head.scheme == expected, "\(text)")
            #expect(head.hasHost == !(url.host ?? "").isEmpty, "\(text)")
        }
    }

    @Test("a request is refused for its scheme or its missing host, as before")
    func validation() throws {
        for (text, valid) in [("http://a/", true), ("ftp://a/", false), ("http:///a", false), ("https+unix://%2Fs/", true)] {
            let request = HTTPRequest(url: try #require(URL(string: text)))
            #expect(((try? request.validateForSending()) != nil) == valid, "\(text)")
        }
    }
}
