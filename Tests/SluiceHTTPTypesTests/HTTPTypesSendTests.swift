import Foundation
import HTTPTypes
import SluiceHTTPTypes
import SluiceTestSupport
import SluiceTransport
import Testing

/// A swift-http-types request sent through a real session to httpbin, which echoes what it received.
@Suite("Sending swift-http-types requests", .tags(.server), .needsServers)
struct HTTPTypesSendTests {
    struct Echo: Decodable {
        let method: String
        let headers: [String: String]
        let data: String
        let args: [String: String]
    }

    @Test("a request with a custom method, repeated fields and a body reaches httpbin whole; the answer is swift-http-types'")
    func sendsThroughSession() async throws {
        let base = try TestEnvironment.url(for: .httpbin)
        let session = SessionManager(configuration: SessionConfiguration())
        defer { session.invalidate(cancelingTasks: true) }
        var request = HTTPTypes.HTTPRequest(
            method: HTTPTypes.HTTPRequest.Method("PATCH")!, scheme: base.scheme, authority: "\(base.host!):\(base.port!)",
            path: "/anything/items?x=%2B1&y=2")
        request.headerFields.append(HTTPField(name: HTTPField.Name("X-Repeated")!, value: "one"))
        request.headerFields.append(HTTPField(name: HTTPField.Name("X-Repeated")!, value: "two"))
        request.headerFields[.contentType] = "text/plain"
        let (response, body) = try await session.send(request, body: .bytes(Data("hello".utf8)))
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "application/json")
        let echo = try JSONDecoder().decode(Echo.self, from: try #require(body.data))
        #expect(echo.method == "PATCH")
        #expect(echo.data == "hello")
        #expect(echo.args == ["x": "+1", "y": "2"])
        #expect(echo.headers["X-Repeated"] == "one,two")
    }

    @Test("a streamed answer, and the session's redirects followed: the final head is returned")
    func streamsAndRedirects() async throws {
        let base = try TestEnvironment.url(for: .httpbin)
        let session = SessionManager(configuration: SessionConfiguration())
        defer { session.invalidate(cancelingTasks: true) }
        let request = HTTPTypes.HTTPRequest(method: .get, scheme: base.scheme, authority: "\(base.host!):\(base.port!)", path: "/redirect/2")
        let (response, body) = try await session.send(request, receiving: .stream)
        #expect(response.status == .ok)
        guard case .stream(let stream) = body else { Issue.record("not a stream: \(body)"); return }
        var received = Data()
        for try await chunk in stream { received.append(chunk) }
        #expect(String(decoding: received, as: UTF8.self).contains("/get"))
    }
}
