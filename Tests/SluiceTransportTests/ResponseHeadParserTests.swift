import Foundation
import SluiceCore
@testable import SluiceTransport
import Testing

/// The response-head parser line by line, with no socket: status lines, the fields the transfer acts
/// on, interim heads and their cap, and `Content-Length` fields that disagree.
@Suite("Response head parser")
struct ResponseHeadParserTests {
    /// Feeds `lines` (each with its CR LF) and returns every outcome.
    private static func feed(_ parser: inout ResponseHeadParser, _ lines: [String]) -> [ResponseHeadParser.Outcome] {
        lines.map { line in
            Array((line + "\r\n").utf8).withUnsafeBytes { parser.consume($0) }
        }
    }

    private static let url = URL(string: "http://example.com/a")!

    @Test("status lines: version and three-digit status", arguments: [
        ("HTTP/1.1 200 OK", HTTPVersion.http1_1, 200), ("HTTP/1.0 404 Not Found", .http1_0, 404), ("HTTP/2 204", .http2, 204),
        ("HTTP/2.0 301 Moved", .http2, 301), ("HTTP/3 200", .http3, 200), ("HTTP/1.1  503  Busy", .http1_1, 503),
        ("HTTP/1.1 20 Short", .http1_1, 0), ("HTTP/1.1 OK", .http1_1, 0), ("HTTP/1.1 2000 Long", .http1_1, 200),
        ("HTTP/9.9 200 Odd", .http1_1, 200), ("HTTP/1.1 102", .http1_1, 102),
    ])
    func statusLine(line: String, version: HTTPVersion, status: Int) {
        let (parsedVersion, parsedStatus) = Array(line.utf8).withUnsafeBytes { ResponseHeadParser.statusLine($0) }
        #expect(parsedVersion == version)
        #expect(parsedStatus == status)
    }

    @Test("a final head: fields kept in order, Content-Length, Content-Encoding and Location noted")
    func finalHead() {
        var parser = ResponseHeadParser(maximumInterimResponses: 4)
        let outcomes = Self.feed(&parser, [
            "HTTP/1.1 301 Moved", "Content-Length: 12", "content-encoding: GZIP", "Content-Encoding: br", "Location: /b",
            "X-Other: value", "",
        ])
        #expect(outcomes == [.proceed, .proceed, .proceed, .proceed, .proceed, .proceed, .head])
        let head = parser.takeHead(url: Self.url)
        #expect(head.statusCode == 301)
        #expect(head.expectedContentLength == 12)
        #expect(head.contentEncoding == "gzip")
        #expect(head.hasLocation)
        let response = head.makeResponse()
        #expect(response.headers.values(for: "Content-Encoding") == ["GZIP", "br"])
        #expect(response.headers["X-Other"] == "value")
    }

    @Test("no Location, no Content-Length: nothing noted")
    func bareHead() {
        var parser = ResponseHeadParser(maximumInterimResponses: 4)
        #expect(Self.feed(&parser, ["HTTP/1.1 200 OK", "Server: x", ""]) == [.proceed, .proceed, .head])
        let head = parser.takeHead(url: Self.url)
        #expect(head.expectedContentLength == nil)
        #expect(head.contentEncoding == nil)
        #expect(!head.hasLocation)
    }

    @Test("interim heads: each 1xx ends as interim and its fields do not reach the final head")
    func interimHeads() {
        var parser = ResponseHeadParser(maximumInterimResponses: 4)
        let outcomes = Self.feed(&parser, [
            "HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a.css>", "Location: /hint", "",
            "HTTP/1.1 200 OK", "Content-Length: 2", "",
        ])
        #expect(outcomes == [.proceed, .interim, .proceed, .proceed, .proceed, .interim, .proceed, .proceed, .head])
        #expect(parser.interimCount == 2)
        let head = parser.takeHead(url: Self.url)
        #expect(head.statusCode == 200)
        #expect(!head.hasLocation)
        #expect(head.makeResponse().headers["Link"] == nil)
    }

    @Test("the interim cap: the heads up to it pass, one more is invalid", arguments: [0, 1, 3, 32])
    func interimCap(maximum: Int) {
        var parser = ResponseHeadParser(maximumInterimResponses: maximum)
        for _ in 0..<maximum {
            #expect(Self.feed(&parser, ["HTTP/1.1 102 Processing", ""]) == [.proceed, .interim])
        }
        let last = Self.feed(&parser, ["HTTP/1.1 102 Processing", ""])
        #expect(last.first == .proceed)
        guard case .invalid(let reason) = last.last else {
            Issue.record("expected invalid, got \(last)")
            return
        }
        #expect(reason.contains("more than \(maximum) interim"))
    }

    @Test("reset starts a new attempt: the interim count and the head's fields start over")
    func resetStartsOver() {
        var parser = ResponseHeadParser(maximumInterimResponses: 1)
        _ = Self.feed(&parser, ["HTTP/1.1 102 Processing", "", "HTTP/1.1 200 OK", "Content-Length: 9"])
        parser.reset()
        #expect(parser.interimCount == 0)
        #expect(parser.statusCode == 0)
        #expect(Self.feed(&parser, ["HTTP/1.1 102 Processing", "", "HTTP/1.1 204 No Content", ""]) == [.proceed, .interim, .proceed, .head])
        #expect(parser.takeHead(url: Self.url).expectedContentLength == nil)
    }

    @Test("a head without a status line ends as a head with status 0")
    func noStatusLine() {
        var parser = ResponseHeadParser(maximumInterimResponses: 1)
        #expect(Self.feed(&parser, ["Weird: yes", ""]) == [.proceed, .head])
        #expect(parser.takeHead(url: Self.url).statusCode == 0)
    }

    @Test("Content-Length fields: agreeing ones pass, disagreeing ones are invalid at the second", arguments: [
        (["Content-Length: 5", "Content-Length: 5"], nil as Int?), (["Content-Length: 5, 5"], nil), (["content-length:5", "CONTENT-LENGTH: 5 "], nil),
        (["Content-Length: 5", "Content-Length: 96"], 1), (["Content-Length: 5, 96"], 0), (["Content-Length: 96", "content-length: 5"], 1),
        (["Content-Length: 5", "X: y", "Content-Length: 6"], 2), (["Content-Length: abc", "Content-Length: 5"], 1),
        (["Content-Length: abc", "Content-Length: abc"], nil),
    ])
    func contentLengthConflicts(fields: [String], invalidAt: Int?) {
        var parser = ResponseHeadParser(maximumInterimResponses: 1)
        _ = Self.feed(&parser, ["HTTP/1.1 200 OK"])
        let outcomes = Self.feed(&parser, fields)
        let firstInvalid = outcomes.firstIndex { if case .invalid = $0 { true } else { false } }
        #expect(firstInvalid == invalidAt, "\(outcomes)")
    }

    @Test("a Content-Length of an interim head does not count against the final head's")
    func interimLengthForgotten() {
        var parser = ResponseHeadParser(maximumInterimResponses: 2)
        let outcomes = Self.feed(&parser, ["HTTP/1.1 103 Early", "Content-Length: 7", "", "HTTP/1.1 200 OK", "Content-Length: 5", ""])
        #expect(outcomes.last == .head)
        #expect(parser.takeHead(url: Self.url).expectedContentLength == 5)
    }

    @Test("line ends: CR LF, LF alone and none are the same line")
    func lineEnds() {
        for ending in ["\r\n", "\n", ""] {
            var parser = ResponseHeadParser(maximumInterimResponses: 1)
            let status = Array("HTTP/1.1 200 OK\(ending)".utf8).withUnsafeBytes { parser.consume($0) }
            let field = Array("Content-Length: 3\(ending)".utf8).withUnsafeBytes { parser.consume($0) }
            let end = Array("\r\n".utf8).withUnsafeBytes { parser.consume($0) }
            #expect([status, field, end] == [.proceed, .proceed, .head])
            #expect(parser.takeHead(url: Self.url).expectedContentLength == 3)
        }
    }
}
