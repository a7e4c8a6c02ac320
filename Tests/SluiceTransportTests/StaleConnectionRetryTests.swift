import Foundation
import SluiceConformance
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

/// A request libcurl would send again after its reused connection died unanswered: once for an
/// idempotent one (or one marked safe to repeat), never for another, never after an answer began.
@Suite("Stale connections")
struct StaleConnectionRetryTests {
    enum Step: CustomStringConvertible {
        case send, answer
        var description: String { self == .send ? "send" : "answer" }
    }

    @Test("each sequence of sendings and answers, for a request that may and may not be repeated", arguments: [
        ([Step.send], true, StaleConnectionRetry.Decision.send),
        ([.send], false, .send),
        ([.send, .send], true, .repeatOnce),  // died unanswered: once
        ([.send, .send], false, .refuse(repeatedAlready: false)),
        ([.send, .send, .send], true, .refuse(repeatedAlready: true)),  // died again: no second repeat
        ([.send, .answer, .send], false, .send),  // an answer came (a 401): an authentication round
        ([.send, .answer, .send, .send], false, .refuse(repeatedAlready: false)),
        ([.send, .answer, .send, .send], true, .repeatOnce),
    ])
    func decisions(steps: [Step], mayBeRepeated: Bool, last: StaleConnectionRetry.Decision) {
        var retry = StaleConnectionRetry()
        var decision = StaleConnectionRetry.Decision.send
        for step in steps {
            switch step {
            case .send: decision = retry.willSend(mayBeRepeated: mayBeRepeated)
            case .answer: retry.answerBegan()
            }
        }
        #expect(decision == last, "\(steps) \(mayBeRepeated)")
    }

    @Test("whether a request may be repeated: its mark, else its method", arguments: [
        (HTTPMethod.get, Bool?.none, true), (.head, nil, true), (.put, nil, true), (.delete, nil, true), (.options, nil, true),
        (.post, nil, false), (.patch, nil, false), (HTTPMethod(rawValue: "PURGE"), nil, false),
        (.post, true, true), (.get, false, false),
    ])
    func mayBeRepeated(method: HTTPMethod, mark: Bool?, expected: Bool) {
        var request = HTTPRequest(url: "http://127.0.0.1/x", method: method)
        request.isSafeToRepeat = mark
        #expect(request.mayBeRepeated == expected)
    }
}

extension TransportSuites {
    /// Against a server that closes each connection when its second request arrives, unanswered.
    @Suite("Stale connections against a server that closes at the edge", .serialized)
    struct StaleConnectionServerTests {
        static let ok = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok".utf8)

        /// Sends a GET to warm the connection, then `request` on it; returns its outcome and how many
        /// times the server saw `request`'s line.
        static func run(_ method: HTTPMethod, safe: Bool? = nil, body: Data? = nil) async throws -> (Result<Int, SluiceError>, Int) {
            let server = try RawTCPServer(reply: .closeOnSecondRequest(ok))
            defer { server.stop() }
            let session = try Transport.session { $0.maximumConnectionsPerHost = 1 }
            _ = try await session.data(for: HTTPRequest(url: server.url.appendingPathComponent("warm")))
            var request = HTTPRequest(url: server.url.appendingPathComponent("target"), method: method)
            request.isSafeToRepeat = safe
            let outcome: Result<Int, SluiceError>
            do throws(SluiceError) {
                let response: DataResponse
                if let body {
                    response = try await session.upload(for: request, from: .bytes(body))
                } else {
                    response = try await session.data(for: request)
                }
                outcome = .success(response.response.statusCode)
            } catch {
                outcome = .failure(error)
            }
            let seen = server.receivedHeads.filter { String(decoding: $0, as: UTF8.self).hasPrefix("\(method.rawValue) /target ") }.count
            return (outcome, seen)
        }

        @Test("a POST sent on a connection that dies unanswered arrives once and fails with connectionLost (libcurl alone sends it twice)")
        func postNotRepeated() async throws {
            for body in [nil, Data("name=sluice".utf8)] {
                let (outcome, seen) = try await Self.run(.post, body: body)
                #expect(seen == 1, "the server saw the POST \(seen) times")
                guard case .failure(let error) = outcome else {
                    Issue.record("expected connectionLost, got \(outcome)")
                    continue
                }
                #expect(error.code == .connectionLost)
                #expect(error.message.contains("not sent again"), "\(error)")
            }
        }

        @Test("a GET, and a POST marked safe to repeat, are sent again once, transparently")
        func idempotentRepeatedOnce() async throws {
            for (method, safe) in [(HTTPMethod.get, Bool?.none), (.put, nil), (.post, true)] {
                let (outcome, seen) = try await Self.run(method, safe: safe, body: method == .get ? nil : Data("x".utf8))
                #expect(try outcome.get() == 200, "\(method)")
                #expect(seen == 2, "\(method): seen \(seen) times")
            }
        }

        @Test("a GET marked not safe to repeat is not sent again")
        func getMarkedOnce() async throws {
            let (outcome, seen) = try await Self.run(.get, safe: false)
            #expect(seen == 1)
            if case .failure(let error) = outcome { #expect(error.code == .connectionLost) } else { Issue.record("\(outcome)") }
        }
    }
}
