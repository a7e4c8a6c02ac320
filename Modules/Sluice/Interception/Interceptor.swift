import SluiceCore

/// Several adapters and retriers acting as one: adapters run in order, each given what the previous
/// returned; retriers are asked in order and the first that retries (or gives up with its own error)
/// decides.
///
/// ```swift
/// let tagging = Interceptor(adapt: { request, _ in
///     var request = request
///     try request.headers.set(name: "X-Client", value: "sluice")
///     return request
/// })
/// let interceptor = Interceptor(adapters: [tagging], retriers: [RetryPolicy()])
/// ```
public struct Interceptor: RequestInterceptor {
    /// Adapts a request; throw to refuse it.
    public typealias AdaptHandler = @Sendable (HTTPRequest, HTTPSessionManager) async throws -> HTTPRequest
    /// Decides about a retry: request, session, error, attempt.
    public typealias RetryHandler = @Sendable (HTTPRequest, HTTPSessionManager, SluiceError, Int) async -> RetryDecision

    /// The adapters, in the order they run. Default: none.
    public var adapters: [any RequestAdapter]
    /// The retriers, in the order they are asked. Default: none.
    public var retriers: [any RequestRetrier]

    /// Combines adapters and retriers.
    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = []) {
        self.adapters = adapters
        self.retriers = retriers
    }

    /// Combines interceptors: their adapters in order, then their retriers in order.
    public init(interceptors: [any RequestInterceptor]) {
        self.init(adapters: interceptors, retriers: interceptors)
    }

    /// An interceptor made of closures.
    ///
    /// - Parameters:
    ///   - adapt: The adapter. Default `nil`: requests as they are.
    ///   - retry: The retrier. Default `nil`: never retries.
    public init(adapt: AdaptHandler? = nil, retry: RetryHandler? = nil) {
        self.init(
            adapters: adapt.map { [ClosureAdapter(handler: $0)] } ?? [],
            retriers: retry.map { [ClosureRetrier(handler: $0)] } ?? [])
    }

    /// Runs every adapter in order.
    ///
    /// - Throws: The first adapter's error.
    public func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest {
        var request = request
        for adapter in adapters { request = try await adapter.adapt(request, for: session) }
        return request
    }

    /// The first decision that is not ``RetryDecision/doNotRetry``, else ``RetryDecision/doNotRetry``.
    public func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision {
        for retrier in retriers {
            let decision = await retrier.retry(request, for: session, dueTo: error, attempt: attempt)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }
}

private struct ClosureAdapter: RequestAdapter {
    let handler: Interceptor.AdaptHandler
    func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest {
        try await handler(request, session)
    }
}

private struct ClosureRetrier: RequestRetrier {
    let handler: Interceptor.RetryHandler
    func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision {
        await handler(request, session, error, attempt)
    }
}
