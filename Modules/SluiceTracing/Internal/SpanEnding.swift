import SluiceCore
import Tracing

/// Ends a span once: when the body it covers ends (with the bytes seen), or, if nobody ever reads the
/// body, when the last reference to it goes (a body dropped unread, a redirect's body set aside).
final class SpanEnding: Sendable {
    private let span: any Span
    private let tally = BodyTally()

    init(_ span: any Span) { self.span = span }

    deinit { end(.success(())) }

    /// Counts a part of the body.
    func received(_ count: Int) { tally.add(count) }

    /// Ends the span (once), with the bytes received so far and the error that ended the body, if any.
    func end(_ result: Result<Void, SluiceError>) {
        guard let bytes = tally.finish() else { return }
        span.attributes["http.response.body.size"] = bytes
        if case .failure(let error) = result { SpanFailure.record(error, on: span) }
        span.end()
    }
}
