import Testing

@testable import SluiceTransport

/// What follows an ended attempt, without a socket: every branch of ``HopAttempts/ended(_:)``.
@Suite("HopAttempts: what follows an ended attempt")
struct HopAttemptsTests {
    typealias Facts = HopAttempts.Facts

    static let cases: [(String, Facts, HopAttempts.Action)] = [
        ("a whole response", Facts(curlSucceeded: true), .complete),
        ("curl finished without a head", Facts(curlSucceeded: true, hasHead: false), .failWithoutResponse),
        ("a callback raised an error", Facts(curlSucceeded: true, callbackFailed: true), .fail),
        ("curl failed, connection alive", Facts(curlSucceeded: false), .fail),
        ("a reused connection died unanswered",
         Facts(curlSucceeded: false, connectionDied: true, reusedConnection: true), .sendAgain(ownConnection: false)),
        ("a new connection died unanswered", Facts(curlSucceeded: false, connectionDied: true), .fail),
        ("a reused connection died under a request that may not be repeated",
         Facts(curlSucceeded: false, connectionDied: true, reusedConnection: true, mayBeRepeated: false), .fail),
        ("a reused connection died after a callback failed",
         Facts(curlSucceeded: false, callbackFailed: true, connectionDied: true, reusedConnection: true), .fail),
        ("a framing error before sending on a reused prior-knowledge connection",
         Facts(curlSucceeded: false, reusedConnection: true, priorKnowledgeFramingErrorBeforeSending: true),
         .sendAgain(ownConnection: true)),
        ("a framing error before sending on a new connection",
         Facts(curlSucceeded: false, priorKnowledgeFramingErrorBeforeSending: true), .fail),
        ("417 to Expect: 100-continue, before the body", Facts(curlSucceeded: false, expectationRefused: true),
         .sendAgain(ownConnection: false)),
        ("417 to Expect after a callback failed", Facts(curlSucceeded: false, callbackFailed: true, expectationRefused: true), .fail),
        ("a framing error after a callback failed",
         Facts(curlSucceeded: false, callbackFailed: true, reusedConnection: true,
               priorKnowledgeFramingErrorBeforeSending: true), .fail),
    ]

    @Test("each ended attempt leads to its action", arguments: cases.indices)
    func action(index: Int) {
        let (name, facts, expected) = Self.cases[index]
        var attempts = HopAttempts()
        attempts.attemptStarted()
        #expect(attempts.ended(facts) == expected, "\(name)")
    }

    @Test("each kind of sending again happens once per hop")
    func onceEach() {
        var attempts = HopAttempts()
        let died = Facts(curlSucceeded: false, connectionDied: true, reusedConnection: true)
        let framing = Facts(curlSucceeded: false, reusedConnection: true, priorKnowledgeFramingErrorBeforeSending: true)
        #expect(attempts.ended(framing) == .sendAgain(ownConnection: true))
        #expect(attempts.resentOnOwnConnection)
        attempts.attemptStarted()
        #expect(attempts.ended(framing) == .fail)
        attempts.attemptStarted()
        #expect(attempts.ended(died) == .sendAgain(ownConnection: false))
        attempts.attemptStarted()
        #expect(attempts.ended(died) == .fail)
    }

    @Test("a 417 to Expect sends the request again once, without it")
    func expectationOnce() {
        var attempts = HopAttempts()
        let refused = Facts(curlSucceeded: false, expectationRefused: true)
        attempts.attemptStarted()
        #expect(attempts.ended(refused) == .sendAgain(ownConnection: false))
        #expect(attempts.resentWithoutExpectation)
        attempts.attemptStarted()
        #expect(attempts.ended(refused) == .fail)
    }

    @Test("a byte of an answer means the connection did not die unanswered: no sending again")
    func answeredThenDied() {
        var attempts = HopAttempts()
        attempts.attemptStarted()
        #expect(attempts.willSend(mayBeRepeated: true) == .send)
        attempts.answerBegan()
        #expect(attempts.ended(Facts(curlSucceeded: false, connectionDied: true, reusedConnection: true)) == .fail)
    }

    @Test("within an attempt, libcurl's second sending after a dead reused connection is allowed once")
    func withinAttempt() {
        var attempts = HopAttempts()
        attempts.attemptStarted()
        #expect(attempts.willSend(mayBeRepeated: true) == .send)
        #expect(attempts.willSend(mayBeRepeated: true) == .repeatOnce)
        #expect(attempts.willSend(mayBeRepeated: true) == .refuse(repeatedAlready: true))
    }
}
