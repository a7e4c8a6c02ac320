import Foundation
@testable import SluiceTransport
import Testing

/// A task's attempts with no socket: what ends each attempt, redirects kept aside or followed, the
/// challenge handler asked once, the body begun once per response.
@Suite("Transfer attempts")
struct TransferAttemptsTests {
    private static func attempts(_ kind: SessionTask.Kind = .data, handler: Bool = true) -> TransferAttempts {
        var attempts = TransferAttempts(kind: kind, hasChallengeHandler: handler)
        attempts.attemptStarted()
        return attempts
    }

    @Test("how an attempt ends: curl's error, a callback's, no head, a redirect, a 401, or the answer", arguments: [
        (false, false, 200 as Int?, false, TransferAttempts.Action.fail), (true, true, 200, false, .fail), (false, true, nil, false, .fail),
        (true, false, nil, false, .failNoResponse), (true, false, 302, true, .decideRedirect), (true, false, 302, false, .complete),
        (true, false, 401, false, .askChallengeHandler), (true, false, 200, false, .complete), (true, false, 500, false, .complete),
        (true, false, 0, false, .complete),
    ])
    func ending(succeeded: Bool, callbackFailed: Bool, status: Int?, follows: Bool, expected: TransferAttempts.Action) {
        var attempts = Self.attempts()
        if status != nil { attempts.headReceived(followsRedirect: follows) }
        let result1 = attempts.attemptEnded(succeeded: succeeded, callbackFailed: callbackFailed, statusCode: status)
        #expect(result1 == expected)
    }

    @Test("a followed redirect counts, and leaving the origin is remembered for the rest of the task")
    func followed() {
        var attempts = Self.attempts()
        attempts.headReceived(followsRedirect: true)
        let result2 = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 301)
        #expect(result2 == .decideRedirect)
        let result3 = attempts.redirectDecided(follow: true, leavesOrigin: true)
        #expect(result3 == .followRedirect)
        #expect(attempts.redirectCount == 1)
        #expect(attempts.leftOriginalOrigin)
        attempts.attemptStarted()
        attempts.headReceived(followsRedirect: true)
        _ = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 302)
        let result4 = attempts.redirectDecided(follow: true, leavesOrigin: false)
        #expect(result4 == .followRedirect)
        #expect(attempts.redirectCount == 2)
        #expect(attempts.leftOriginalOrigin)
    }

    @Test("a redirect the policy stops: its body becomes the answer's, then the task completes")
    func stopped() {
        var attempts = Self.attempts()
        attempts.headReceived(followsRedirect: true)
        #expect(attempts.buffersRedirectBody)
        let result5 = attempts.beginBody()
        #expect(!result5, "a redirect's body is kept aside, not begun")
        _ = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 302)
        let result6 = attempts.redirectDecided(follow: false, leavesOrigin: true)
        #expect(result6 == .deliverRedirectBody)
        #expect(!attempts.buffersRedirectBody)
        #expect(attempts.redirectCount == 0)
        #expect(attempts.leftOriginalOrigin, "planned to leave: the session's credentials stay off")
        let result7 = attempts.beginBody()
        #expect(result7)
        let result8 = attempts.redirectBodyDelivered()
        #expect(result8 == .complete)
    }

    @Test("the body is begun once per response, and again for the next attempt's")
    func bodyOnce() {
        var attempts = Self.attempts()
        attempts.headReceived(followsRedirect: false)
        let begins = (0..<3).map { _ in attempts.beginBody() }
        #expect(begins == [true, false, false])
        attempts.attemptStarted()
        attempts.headReceived(followsRedirect: false)
        let again = attempts.beginBody()
        #expect(again)
    }

    @Test("a 401 asks the handler once: a credential retries, none completes", arguments: [true, false])
    func challenge(offered: Bool) {
        var attempts = Self.attempts()
        attempts.headReceived(followsRedirect: false)
        let result9 = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 401)
        #expect(result9 == .askChallengeHandler)
        #expect(attempts.askedChallengeHandler)
        let result10 = attempts.challengeAnswered(offered: offered)
        #expect(result10 == (offered ? .retryWithCredential : .complete))
        attempts.attemptStarted()
        attempts.headReceived(followsRedirect: false)
        let result11 = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 401)
        #expect(result11 == .complete, "asked once per task")
    }

    @Test("no handler, or a stream, never asks", arguments: [(SessionTask.Kind.data, false), (.stream, true), (.stream, false)])
    func noChallenge(kind: SessionTask.Kind, handler: Bool) {
        var attempts = Self.attempts(kind, handler: handler)
        attempts.headReceived(followsRedirect: false)
        let result12 = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 401)
        #expect(result12 == .complete)
    }

    @Test("a 401 after a redirect is asked about; a stopped redirect's own status is not a challenge")
    func challengeAfterRedirect() {
        var attempts = Self.attempts(.download)
        attempts.headReceived(followsRedirect: true)
        _ = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 307)
        _ = attempts.redirectDecided(follow: true, leavesOrigin: false)
        attempts.attemptStarted()
        attempts.headReceived(followsRedirect: false)
        let result13 = attempts.attemptEnded(succeeded: true, callbackFailed: false, statusCode: 401)
        #expect(result13 == .askChallengeHandler)
    }

    @Test("a new attempt forgets the last response: nothing kept aside, nothing begun")
    func attemptStartedResets() {
        var attempts = Self.attempts()
        attempts.headReceived(followsRedirect: true)
        attempts.attemptStarted()
        #expect(!attempts.buffersRedirectBody)
        #expect(!attempts.bodyBegun)
    }
}
