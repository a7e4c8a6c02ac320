import SluiceCore
import Tracing

/// Ends a span once: when the body it covers ends (with the bytes seen), or, if nobody ever reads the
/// body, when the last reference to it goes (a body dropped unread, a redirect's body set aside).
final class SpanEnding: Sendable {
    private struct State: Sendable {
        var ended = false
        var bytes: Int64 = 0
    }

    private let span: any Span
    private let state = Locked(State())

    init(_ span: any Span) { self.span = span }

    deinit { end(.success(())) }

    /// Counts a part of the body.
    func received(_ count: Int) {
        state.withLock { $0.bytes += Int64(count) }
    }

    /// Ends the span (once), with the bytes received so far and the error that ended the body, if any.
    func end(_ result: Result<Void, SluiceError>) {
        let bytes: Int64? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state.bytes
        }
        guard let bytes else { return }
        span.attributes["http.response.body.size"] = bytes
        if case .failure(let error) = result { SpanFailure.record(error, on: span) }
        span.end()
    }
}
