import Foundation
import Testing

@testable import SluiceTransport

/// The follow-ups' decisions, table by table, without a socket.
@Suite("FollowUps: redirects and authentication rounds, one hop at a time")
struct FollowUpsTests {
    static let origin = HTTPRequest(url: "https://a.example/start", method: .post, body: .bytes(Data("x".utf8)))

    static func response(_ status: Int, location: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let location { try? headers.set(name: "Location", value: location) }
        return HTTPResponse(statusCode: status, headers: headers)
    }

    /// What an action is, without its payload.
    static func name(_ action: FollowUps.Action) -> String {
        switch action {
        case .deliver: "deliver"
        case .follow(let next): "follow \(next.method.rawValue) \(next.url.absoluteString)"
        case .askPolicy(let proposed, let leaves): "ask \(proposed.url.absoluteString)\(leaves ? " leaving" : "")"
        case .askChallengeHandler: "ask handler"
        case .retry(let credential): "retry as \(credential.user)"
        case .fail(let error): "fail \(error.code)"
        }
    }

    struct Row: Sendable, CustomStringConvertible {
        let description: String
        let kind: SessionTask.Kind
        let policy: RedirectPolicy
        let handler: Bool
        let status: Int
        let location: String?
        let expected: String
    }

    static let rows: [Row] = [
        Row(description: "200 is delivered", kind: .data, policy: .follow(), handler: true, status: 200, location: nil, expected: "deliver"),
        Row(description: "302 after POST becomes a GET", kind: .data, policy: .follow(), handler: false, status: 302, location: "/next",
            expected: "follow GET https://a.example/next"),
        Row(description: "307 keeps the method", kind: .upload, policy: .follow(), handler: false, status: 307, location: "/next",
            expected: "follow POST https://a.example/next"),
        Row(description: "303 becomes a GET", kind: .download, policy: .follow(), handler: false, status: 303, location: "https://b.example/x",
            expected: "follow GET https://b.example/x"),
        Row(description: "a redirect without Location is delivered", kind: .data, policy: .follow(), handler: false, status: 302, location: nil,
            expected: "deliver"),
        Row(description: "refuse delivers the redirect", kind: .data, policy: .refuse, handler: false, status: 301, location: "/n",
            expected: "deliver"),
        Row(description: "decide asks the closure", kind: .data, policy: .decide { next, _ in next }, handler: false, status: 308,
            location: "https://b.example/", expected: "ask https://b.example/ leaving"),
        Row(description: "maximum 0 fails the first redirect", kind: .data, policy: .follow(maximum: 0), handler: false, status: 302,
            location: "/n", expected: "fail transport.tooManyRedirects"),
        Row(description: "an unusable Location fails", kind: .data, policy: .follow(), handler: false, status: 302, location: "ftp://x/",
            expected: "fail transport.redirectRefused"),
        Row(description: "401 with a handler asks it", kind: .data, policy: .follow(), handler: true, status: 401, location: nil,
            expected: "ask handler"),
        Row(description: "401 without a handler is delivered", kind: .data, policy: .follow(), handler: false, status: 401, location: nil,
            expected: "deliver"),
        Row(description: "a stream never waits for a handler", kind: .stream, policy: .follow(), handler: true, status: 401, location: nil,
            expected: "deliver"),
        Row(description: "407 is not a challenge the handler answers", kind: .data, policy: .follow(), handler: true, status: 407,
            location: nil, expected: "deliver"),
    ]

    @Test("the first answer of a call", arguments: rows)
    func firstAnswer(row: Row) {
        var planner = FollowUps(kind: row.kind, policy: row.policy, hasChallengeHandler: row.handler)
        // Whether the exchange keeps the body aside (asked at the head) agrees with whether the follow-ups
        // then act on the answer.
        let mayFollow = planner.mayFollow(statusCode: row.status, hasLocation: row.location != nil)
        let action = planner.answered(Self.origin, with: Self.response(row.status, location: row.location))
        #expect(Self.name(action) == row.expected)
        #expect(mayFollow == (row.expected != "deliver"))
    }

    @Test("the handler is asked once per call: its credential is retried, then the next 401 is delivered")
    func handlerOnce() {
        var planner = FollowUps(kind: .data, policy: .follow(), hasChallengeHandler: true)
        #expect(Self.name(planner.answered(Self.origin, with: Self.response(401))) == "ask handler")
        #expect(Self.name(planner.challengeAnswered(Credential(user: "u", password: "p"))) == "retry as u")
        #expect(!planner.mayFollow(statusCode: 401, hasLocation: false))
        #expect(Self.name(planner.answered(Self.origin, with: Self.response(401))) == "deliver")
    }

    @Test("a handler that offers nothing delivers the 401")
    func handlerDeclines() {
        var planner = FollowUps(kind: .data, policy: .follow(), hasChallengeHandler: true)
        _ = planner.answered(Self.origin, with: Self.response(401))
        #expect(Self.name(planner.challengeAnswered(nil)) == "deliver")
    }

    @Test("the policy's closure: a request to follow, or nil to deliver the redirect")
    func policyAnswers() {
        var planner = FollowUps(kind: .data, policy: .decide { next, _ in next }, hasChallengeHandler: false)
        _ = planner.answered(Self.origin, with: Self.response(302, location: "https://b.example/"))
        let next = HTTPRequest(url: "https://b.example/")
        #expect(Self.name(planner.policyAnswered(next, leavesOrigin: true)) == "follow GET https://b.example/")
        #expect(planner.leftOriginalOrigin)
        #expect(planner.redirectCount == 1)
        _ = planner.answered(next, with: Self.response(302, location: "/again"))
        #expect(Self.name(planner.policyAnswered(nil, leavesOrigin: false)) == "deliver")
        #expect(planner.redirectCount == 1)
    }

    @Test("redirects count up to the maximum; the one after it fails", arguments: [1, 3, 16])
    func maximum(_ maximum: Int) {
        var planner = FollowUps(kind: .data, policy: .follow(maximum: maximum), hasChallengeHandler: false)
        var request = HTTPRequest(url: "https://a.example/0")
        for hop in 1...maximum {
            guard case .follow(let next) = planner.answered(request, with: Self.response(302, location: "/\(hop)")) else {
                Issue.record("hop \(hop) not followed")
                return
            }
            request = next
        }
        #expect(Self.name(planner.answered(request, with: Self.response(302, location: "/more"))) == "fail transport.tooManyRedirects")
    }

    @Test("leaving the origin drops the origin-bound headers and is remembered after coming back")
    func leavingTheOrigin() throws {
        var planner = FollowUps(kind: .data, policy: .follow(), hasChallengeHandler: false)
        var request = HTTPRequest(url: "https://a.example/")
        try request.headers.set(name: "Authorization", value: "Bearer t")
        guard case .follow(let away) = planner.answered(request, with: Self.response(302, location: "https://b.example/")) else {
            Issue.record("not followed")
            return
        }
        #expect(away.headers["Authorization"] == nil)
        #expect(planner.leftOriginalOrigin)
        guard case .follow = planner.answered(away, with: Self.response(302, location: "https://a.example/back")) else {
            Issue.record("not followed back")
            return
        }
        #expect(planner.leftOriginalOrigin)
    }
}

/// The hand-off of a streamed hop's head, every order of its events.
@Suite("HeadHandoff: a streamed hop's head or end, handed over once")
struct HeadHandoffTests {
    typealias Handoff = HeadHandoff<Int>

    static func name(_ arrival: Handoff.Arrival) -> String {
        switch arrival {
        case .resume(let waiter): "resume \(waiter)"
        case .kept: "kept"
        case .afterHandover: "body's"
        }
    }

    @Test("the call waits first: the head resumes it; the transfer's end then belongs to the body")
    func waitFirst() {
        var handoff = Handoff()
        #expect(handoff.wait(7) == nil)
        #expect(Self.name(handoff.arrive(.success(()))) == "resume 7")
        #expect(Self.name(handoff.arrive(.failure(SluiceError(.cancelled, "x")))) == "body's")
    }

    @Test("the head comes first: kept for the wait, which returns at once")
    func headFirst() throws {
        var handoff = Handoff()
        #expect(Self.name(handoff.arrive(.success(()))) == "kept")
        let waited = handoff.wait(1)
        let early = try #require(waited)
        #expect((try? early.get()) != nil)
        #expect(Self.name(handoff.arrive(.success(()))) == "body's")
    }

    @Test("the transfer fails before the head: the waiting call gets the error")
    func failureFirst() {
        var handoff = Handoff()
        #expect(Self.name(handoff.arrive(.failure(SluiceError(.connectionLost, "gone")))) == "kept")
        guard case .failure(let error)? = handoff.wait(1) else {
            Issue.record("no early failure")
            return
        }
        #expect(error.code == .connectionLost)
    }

    @Test("reset starts the next hop over")
    func reset() {
        var handoff = Handoff()
        _ = handoff.wait(1)
        _ = handoff.arrive(.success(()))
        handoff.reset()
        #expect(handoff.wait(2) == nil)
        #expect(Self.name(handoff.arrive(.success(()))) == "resume 2")
    }
}
