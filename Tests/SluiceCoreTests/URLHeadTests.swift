import Foundation
import SluiceConformanceKit
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

    /// The scheme Foundation's `scheme` gives `url`, as ``URLHead`` names it.
    static func scheme(asFoundationReads url: URL) -> URLHead.Scheme {
        switch url.scheme?.lowercased() {
        case "http": .http
        case "https": .https
        case "http+unix": .httpUnix
        case "https+unix": .httpsUnix
        default: .other
        }
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
            let expected = Self.scheme(asFoundationReads: url)
            #expect(head.scheme == expected, "\(text)")
            #expect(head.hasHost == !(url.host ?? "").isEmpty, "\(text)")
        }
    }

    @Test("agrees with Foundation for 5,000 generated URL strings")
    func agreesOnGeneratedStrings() {
        // Pieces a URL's head is made of, hostile ones included; a fixed seed, so a failure repeats.
        let schemes = ["http", "HTTPS", "hTtP+uNiX", "https+unix", "ftp", "h-t.t+p", "1http", "", "ht%74p"]
        let separators = ["://", ":/", ":", "//", ":///", "://@", "://a@", "://u:p@", "://@@"]
        let hosts = ["example.com", "", "[::1]", "[]", "[", "%65x", "127.0.0.1", "a@b", ":", "h\u{301}", "xn--bcher-kva"]
        let tails = ["", ":80", ":", "/", "/p?q", "?q", "#f", ":8080/a#b", "/%2F", "@x/"]
        var generator = SplitMix64(seed: 0x5EED)
        var compared = 0
        for _ in 0..<5000 {
            let text = schemes.randomElement(using: &generator)! + separators.randomElement(using: &generator)!
                + hosts.randomElement(using: &generator)! + tails.randomElement(using: &generator)!
            guard let url = URL(string: text) else { continue }
            compared += 1
            let head = URLHead(url.absoluteString)
            let expected = Self.scheme(asFoundationReads: url)
            #expect(head.scheme == expected, "\(text)")
            // Where the scheme is one a transfer sends to, the host decides whether the request is sent.
            if expected != .other { #expect(head.hasHost == !(url.host ?? "").isEmpty, "\(text)") }
        }
        #expect(compared > 1000)
    }

    @Test("a request is refused for its scheme or its missing host, as before")
    func validation() throws {
        for (text, valid) in [("http://a/", true), ("ftp://a/", false), ("http:///a", false), ("https+unix://%2Fs/", true)] {
            let request = HTTPRequest(url: try #require(URL(string: text)))
            #expect(((try? request.validateForSending()) != nil) == valid, "\(text)")
        }
    }
}
