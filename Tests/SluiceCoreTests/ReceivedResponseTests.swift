import Foundation
import SluiceCore
import Testing

/// A response made from received field lines parses them when first read, into what a response made
/// from the same fields parsed holds.
@Suite("HTTPResponse from received field lines")
struct ReceivedResponseTests {
    static let lines = Array((
        "Server: nginx\n" + "Content-Type: application/json; charset=utf-8\n" + "Bad Name: dropped\n"
            + "X-Empty:\n" + "Set-Cookie: a=1\n" + "Set-Cookie: b=2\n" + "X-Control: a\u{1}b\n" + "Content-Length: 42\n"
    ).utf8)

    static func received() -> HTTPResponse {
        HTTPResponse(statusCode: 201, receivedFieldLines: lines, url: URL(string: "http://127.0.0.1/x"), httpVersion: .http1_1)
    }

    @Test("fields in order, invalid lines left out, Content-Type and length read from them")
    func parsedOnRead() throws {
        let response = Self.received()
        #expect(response.headers.map(\.name) == ["Server", "Content-Type", "X-Empty", "Set-Cookie", "Set-Cookie", "Content-Length"])
        #expect(response.headers.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(response.headers.first("X-Empty") == "")
        #expect(response.mimeType == "application/json")
        #expect(response.textEncodingName == "utf-8")
        #expect(response.expectedContentLength == 42)
    }

    @Test("equal to, and hashed as, the same response made from parsed fields; copies share one parse")
    func sameAsParsed() throws {
        let received = Self.received()
        let copy = received
        let parsed = HTTPResponse(statusCode: 201, headers: received.headers, url: URL(string: "http://127.0.0.1/x"))
        #expect(received == parsed)
        #expect(received.hashValue == parsed.hashValue)
        #expect(copy.headers == parsed.headers)
        #expect(received != HTTPResponse(statusCode: 201, headers: HTTPHeaders(), url: URL(string: "http://127.0.0.1/x")))
        let empty = HTTPResponse(statusCode: 204, receivedFieldLines: [], url: nil, httpVersion: .http2)
        #expect(empty.headers.isEmpty && empty.contentType == nil)
    }

    @Test("first reads from many threads at once all see the same fields")
    func concurrentFirstReads() async throws {
        for _ in 0..<20 {
            let response = Self.received()
            let counts = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<16 { group.addTask { response.headers.count + (response.contentType == nil ? 100 : 0) } }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 6, count: 16))
        }
    }
}
