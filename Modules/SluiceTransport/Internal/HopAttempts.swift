/// The attempts of one hop on the engine: whether a request goes out (again) within an attempt, and what
/// follows when an attempt ends. A value with no locks and no I/O: the transfer tells it what curl and its
/// callbacks said, and carries out the action it returns (resetting the sink, marking the origin, mapping
/// the error, decoding the body's tail).
struct HopAttempts: Equatable {
    /// What an ended attempt leads to.
    enum Action: Equatable {
        /// The same request once more, as a new attempt; on a connection of its own when `ownConnection`
        /// (the session then gives later requests to this origin their own too).
        case sendAgain(ownConnection: Bool)
        /// The hop fails with what the callbacks raised, else with curl's code mapped.
        case fail
        /// The hop fails: curl finished without a response head.
        case failWithoutResponse
        /// The response is whole: its body's tail is decoded and the hop completes.
        case complete
    }

    /// What is known of an attempt as it ends.
    struct Facts: Equatable {
        /// curl ended the attempt with `CURLE_OK`.
        var curlSucceeded: Bool
        /// A callback raised an error, which ended the attempt.
        var callbackFailed = false
        /// A final response head arrived.
        var hasHead = true
        /// curl's code says the connection ended under the request (``Transfer/isConnectionDeath(_:)``).
        var connectionDied = false
        /// The attempt went out on a connection reused from an earlier request.
        var reusedConnection = false
        /// The request may be sent twice (``HTTPRequest/mayBeRepeated``).
        var mayBeRepeated = true
        /// The server answered the request's `Expect: 100-continue` with `417 Expectation Failed`, before
        /// its body went out; the transfer ended the attempt there.
        var expectationRefused = false
        /// curl failed with an HTTP/2 framing error on a clear-text connection with prior knowledge
        /// before a byte of the request went out (libcurl 7.88's failure on reused connections to some
        /// servers).
        var priorKnowledgeFramingErrorBeforeSending = false
    }

    /// Whether libcurl may send the request again within the current attempt.
    private(set) var staleConnection = StaleConnectionRetry()
    /// Whether the request was sent again on a connection of its own after a framing error.
    private(set) var resentOnOwnConnection = false
    /// Whether the request was sent again without `Expect: 100-continue` after a 417.
    private(set) var resentWithoutExpectation = false

    /// A new attempt starts on a new handle.
    mutating func attemptStarted() { staleConnection.attemptStarted() }

    /// The request is about to go out (again) within the attempt (curl's pre-request callback).
    mutating func willSend(mayBeRepeated: Bool) -> StaleConnectionRetry.Decision {
        staleConnection.willSend(mayBeRepeated: mayBeRepeated)
    }

    /// A byte of an answer arrived.
    mutating func answerBegan() { staleConnection.answerBegan() }

    /// The attempt ended: what follows.
    mutating func ended(_ facts: Facts) -> Action {
        if facts.expectationRefused, !facts.callbackFailed, !resentWithoutExpectation {
            // The body never went out: the same request once more, without asking.
            resentWithoutExpectation = true
            return .sendAgain(ownConnection: false)
        }
        if facts.priorKnowledgeFramingErrorBeforeSending, !facts.callbackFailed, facts.reusedConnection,
            !resentOnOwnConnection
        {
            // Nothing went out, so any method is sent again.
            resentOnOwnConnection = true
            return .sendAgain(ownConnection: true)
        }
        if !facts.curlSucceeded, !facts.callbackFailed,
            staleConnection.attemptFailed(
                connectionDied: facts.connectionDied, reusedConnection: facts.reusedConnection,
                mayBeRepeated: facts.mayBeRepeated)
        {
            // The reused connection died before a byte of the answer: once more, on a new connection.
            return .sendAgain(ownConnection: false)
        }
        guard facts.curlSucceeded, !facts.callbackFailed else { return .fail }
        return facts.hasHead ? .complete : .failWithoutResponse
    }
}
