import Foundation
import SluiceCore

/// Retries idempotent requests that failed for a reason worth another try, with exponential back-off
/// and jitter, and honours `Retry-After`.
///
/// An attempt is retried when all hold: fewer than ``retryLimit`` retries were made; the method is in
/// ``retryableMethods``; the body can be sent again (bytes, a file, or a rewindable stream); and the
/// response status is in ``retryableStatusCodes`` or the error's code is in ``retryableErrorCodes``.
/// The delay is `exponentialBackoffScale × exponentialBackoffBase^(attempt − 1)`, times a random factor
/// in 0.5…1 when ``usesJitter`` is on; a `Retry-After` header (seconds or an HTTP date) replaces it, and
/// one longer than ``maximumRetryAfter`` means no retry.
public struct RetryPolicy: RequestInterceptor {
    /// 2 retries (3 attempts in all).
    public static let defaultRetryLimit = 2
    /// Doubling: 2.
    public static let defaultExponentialBackoffBase = 2.0
    /// 0.5 s before the first retry.
    public static let defaultExponentialBackoffScale = Duration.milliseconds(500)
    /// The idempotent methods: `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`.
    public static let defaultRetryableMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]
    /// 408, 500, 502, 503, 504.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// A lost connection, the three timeouts, and a host that could not be reached.
    public static let defaultRetryableErrorCodes: Set<SluiceError.Code> = [
        .connectionLost, .connectTimedOut, .idleTimedOut, .resourceTimedOut, .cannotConnect, .cannotResolveHost,
    ]

    /// The most retries per request. Default ``defaultRetryLimit``.
    public var retryLimit: Int
    /// The back-off's base. Default ``defaultExponentialBackoffBase``.
    public var exponentialBackoffBase: Double
    /// The first retry's delay. Default ``defaultExponentialBackoffScale``.
    public var exponentialBackoffScale: Duration
    /// Whether each delay is multiplied by a random factor in 0.5…1, so clients that failed together
    /// do not retry together. Default `true`.
    public var usesJitter: Bool
    /// The longest `Retry-After` waited for; a longer one gives up. Default 60 s.
    public var maximumRetryAfter: Duration
    /// Methods retried, upper case. Default ``defaultRetryableMethods``.
    public var retryableMethods: Set<String>
    /// Statuses retried. Default ``defaultRetryableStatusCodes``.
    public var retryableStatusCodes: Set<Int>
    /// Error codes retried. Default ``defaultRetryableErrorCodes``.
    public var retryableErrorCodes: Set<SluiceError.Code>

    /// A policy with the given settings; every one has a default.
    public init(
        retryLimit: Int = defaultRetryLimit,
        exponentialBackoffBase: Double = defaultExponentialBackoffBase,
        exponentialBackoffScale: Duration = defaultExponentialBackoffScale,
        usesJitter: Bool = true,
        maximumRetryAfter: Duration = .seconds(60),
        retryableMethods: Set<String> = defaultRetryableMethods,
        retryableStatusCodes: Set<Int> = defaultRetryableStatusCodes,
        retryableErrorCodes: Set<SluiceError.Code> = defaultRetryableErrorCodes
    ) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.usesJitter = usesJitter
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableMethods = Set(retryableMethods.map { $0.uppercased() })
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
    }

    public func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision {
        decision(for: request, error: error, attempt: attempt, now: Date())
    }

    /// The decision, without waiting: see the type's description.
    public func decision(for request: HTTPRequest, error: SluiceError, attempt: Int, now: Date = Date()) -> RetryDecision {
        guard attempt <= retryLimit, retryableMethods.contains(request.method.rawValue.uppercased()),
            Self.canResend(request.body), isRetryable(error)
        else { return .doNotRetry }
        if let header = error.response?.headers["Retry-After"], let wait = Self.retryAfter(header, now: now) {
            return wait <= maximumRetryAfter ? .retryAfter(wait) : .doNotRetry
        }
        return .retryAfter(backoff(attempt: attempt))
    }

    /// Whether the error's status or code is one this policy retries.
    public func isRetryable(_ error: SluiceError) -> Bool {
        if let status = error.response?.statusCode, retryableStatusCodes.contains(status) { return true }
        return retryableErrorCodes.contains(error.code)
    }

    /// The back-off before retry number `attempt` (1 for the first), jitter included.
    public func backoff(attempt: Int) -> Duration {
        let factor = pow(exponentialBackoffBase, Double(max(0, attempt - 1)))
        let jitter = usesJitter ? Double.random(in: 0.5...1) : 1
        return exponentialBackoffScale * (factor * jitter)
    }

    /// `Retry-After` as a wait: delay seconds, or an HTTP date (past dates wait zero); `nil` when the
    /// value is neither.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }

    /// Whether a body can be sent a second time.
    static func canResend(_ body: HTTPBody) -> Bool {
        if case .stream(let stream) = body { return stream.isRewindable }
        return true
    }
}
