import SluiceCore
import Tracing

/// Writes an instrument's trace context (W3C `traceparent` and `tracestate`, or whatever the bootstrapped
/// instrument propagates) into a request's header fields, replacing fields of the same name.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        // A key or value that is no valid header field is left out rather than sent malformed.
        try? carrier.set(name: key, value: value)
    }
}
