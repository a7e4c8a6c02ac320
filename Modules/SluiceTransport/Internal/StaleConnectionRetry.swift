/// Whether libcurl may send a request again within one attempt: RFC 9110's rule, made Sluice's.
///
/// libcurl sends a request again on a new connection when the reused connection it went out on closed
/// before any byte of the answer, whatever the method, up to five times. A value with no locks and no
/// I/O: the transfer tells it each time the request is about to go out (libcurl's pre-request callback)
/// and each time a byte of an answer arrives, and carries out what it returns.
struct StaleConnectionRetry: Equatable {
    /// What to do with a request about to go out.
    enum Decision: Equatable {
        /// Send it: the attempt's first sending, or one after an answer (an authentication round).
        case send
        /// Send it again: the reused connection died unanswered, and the request may be repeated (once).
        case repeatOnce
        /// Do not send it again: the reused connection died unanswered and the request may not be
        /// repeated, or was repeated already. The attempt fails with `connectionLost`.
        case refuse(repeatedAlready: Bool)
    }

    /// How many times the request went out in this attempt.
    private(set) var sendings = 0
    /// Whether a byte of an answer arrived since it last went out.
    private(set) var answered = false
    /// Whether it was sent again after a dead connection.
    private(set) var repeated = false

    /// The request is about to go out (again); `mayBeRepeated` is ``HTTPRequest/mayBeRepeated``.
    mutating func willSend(mayBeRepeated: Bool) -> Decision {
        defer { answered = false }
        sendings += 1
        guard sendings > 1, !answered else { return .send }
        guard mayBeRepeated, !repeated else { return .refuse(repeatedAlready: repeated) }
        repeated = true
        return .repeatOnce
    }

    /// A byte of an answer arrived (a header line, an interim response).
    mutating func answerBegan() { answered = true }

    /// A new attempt of the same request starts (Sluice sends it again): the count of sendings starts
    /// over, whether it was repeated already does not.
    mutating func attemptStarted() {
        sendings = 0
        answered = false
    }

    /// The attempt ended with a failure libcurl did not retry itself: whether Sluice sends the request
    /// once more on a new connection. Yes when the connection was reused, died (`connectionDied`) before any
    /// byte of an answer, and the request may be repeated and was not yet (an HTTP/2 server that closed
    /// the connection just as the stream went out: libcurl 7.88 fails that stream rather than retrying).
    mutating func attemptFailed(connectionDied: Bool, reusedConnection: Bool, mayBeRepeated: Bool) -> Bool {
        // `sendings` may be 0: the pre-request callback that counts them is left out for a plain-HTTP
        // request that may be repeated.
        guard connectionDied, reusedConnection, !answered, mayBeRepeated, !repeated else { return false }
        repeated = true
        return true
    }
}
