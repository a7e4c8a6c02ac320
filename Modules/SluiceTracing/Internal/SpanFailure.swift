import SluiceCore
import Tracing

/// How a failed call or hop shows on its span.
enum SpanFailure {
    /// Records `error` (its ``SluiceError/Code`` as `error.type`) and marks the span failed.
    static func record(_ error: SluiceError, on span: any Span) {
        span.attributes["error.type"] = error.code.rawValue
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.message))
    }

    /// Marks the span failed for an answer of 400 or more: the conventions count a client's 4xx and 5xx as
    /// errors (`error.type` is set by ``HTTPSpanAttributes/response(_:into:)``).
    static func mark(_ answer: HTTPLayerResponse, on span: any Span) {
        if answer.response.statusCode >= 400 { span.setStatus(SpanStatus(code: .error)) }
    }
}
