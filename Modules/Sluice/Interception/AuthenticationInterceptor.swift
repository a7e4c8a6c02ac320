import SluiceCore

/// Applies a credential to every request and refreshes it once for all the requests it failed.
///
/// When many requests fail with 401 at once, the first starts one refresh and every other waits for
/// it; then all are retried with the new credential. A request that failed with a credential that
/// has been replaced meanwhile is retried at once, without another refresh. A credential that says it
/// ``AuthenticationCredential/requiresRefresh`` is refreshed before it is applied. More than
/// ``refreshLimit`` refreshes within ``refreshWindow`` fail with
/// ``SluiceError/Code/authenticationExcessiveRefresh`` instead of looping.
public final class AuthenticationInterceptor<Base: Authenticator>: RequestInterceptor {
    /// The authenticator.
    public let authenticator: Base
    /// The most refreshes within ``refreshWindow``. Default 5.
    public let refreshLimit: Int
    /// The window ``refreshLimit`` counts in. Default 30 s.
    public let refreshWindow: Duration
    private let state: AuthenticationState<Base>

    /// An interceptor for `authenticator` starting with `credential`.
    ///
    /// - Parameters:
    ///   - authenticator: Applies and refreshes credentials.
    ///   - credential: The first credential. Default `nil`: requests fail with
    ///     ``SluiceError/Code/authenticationMissingCredential`` until ``setCredential(_:)``.
    ///   - refreshLimit: Refreshes allowed per window. Default 5.
    ///   - refreshWindow: The window. Default 30 s.
    public init(
        authenticator: Base, credential: Base.Credential? = nil, refreshLimit: Int = 5,
        refreshWindow: Duration = .seconds(30)
    ) {
        self.authenticator = authenticator
        self.refreshLimit = refreshLimit
        self.refreshWindow = refreshWindow
        self.state = AuthenticationState(credential: credential)
    }

    /// The current credential.
    public var credential: Base.Credential? { get async { await state.credential } }

    /// Replaces the credential (after a sign-in, say).
    public func setCredential(_ credential: Base.Credential?) async { await state.set(credential) }

    /// How many refreshes have completed.
    public var refreshCount: Int { get async { await state.refreshCount } }

    /// Applies the current credential, refreshing it first when it requires so or a refresh is under way.
    ///
    /// - Throws: ``SluiceError/Code/authenticationMissingCredential``, a refresh's error, or what
    ///   ``Authenticator/apply(_:to:)`` throws.
    public func adapt(_ request: HTTPRequest, for session: HTTPSessionManager) async throws -> HTTPRequest {
        let credential = try await state.usableCredential(authenticator, session: session, limit: limits)
        var request = request
        try authenticator.apply(credential, to: &request)
        return request
    }

    /// Retries a request the server refused for its credential: at once when the credential has
    /// changed since the request was sent, else after the (single, shared) refresh.
    public func retry(
        _ request: HTTPRequest, for session: HTTPSessionManager, dueTo error: SluiceError, attempt: Int
    ) async -> RetryDecision {
        guard let response = error.response,
            authenticator.didRequest(request, with: response, failDueToAuthenticationError: error)
        else { return .doNotRetry }
        do {
            try await state.refresh(ifUsedBy: request, authenticator, session: session, limit: limits)
            return .retry
        } catch {
            return .doNotRetryWithError(
                SluiceError.wrapping(error, as: .authenticationRefreshFailed, "refreshing the credential failed", request: request))
        }
    }

    private var limits: (count: Int, window: Duration) { (refreshLimit, refreshWindow) }
}

/// The credential and the refresh under way, shared by every request of one interceptor.
actor AuthenticationState<Base: Authenticator> {
    private(set) var credential: Base.Credential?
    private(set) var refreshCount = 0
    private var refreshing: Task<Base.Credential, any Error>?
    private var refreshTimes: [ContinuousClock.Instant] = []

    init(credential: Base.Credential?) { self.credential = credential }

    func set(_ credential: Base.Credential?) { self.credential = credential }

    func usableCredential(
        _ authenticator: Base, session: HTTPSessionManager, limit: (count: Int, window: Duration)
    ) async throws -> Base.Credential {
        if let refreshing { return try await refreshing.value }
        guard let credential else {
            throw SluiceError(.authenticationMissingCredential, "the authentication interceptor has no credential")
        }
        guard credential.requiresRefresh else { return credential }
        return try await refresh(credential, authenticator, session: session, limit: limit)
    }

    /// Refreshes unless the request was sent with an older credential than the current one.
    func refresh(
        ifUsedBy request: HTTPRequest, _ authenticator: Base, session: HTTPSessionManager,
        limit: (count: Int, window: Duration)
    ) async throws {
        if let refreshing {
            _ = try await refreshing.value
            return
        }
        guard let credential else {
            throw SluiceError(.authenticationMissingCredential, "the authentication interceptor has no credential")
        }
        guard authenticator.isRequest(request, authenticatedWith: credential) else { return }
        _ = try await refresh(credential, authenticator, session: session, limit: limit)
    }

    private func refresh(
        _ credential: Base.Credential, _ authenticator: Base, session: HTTPSessionManager,
        limit: (count: Int, window: Duration)
    ) async throws -> Base.Credential {
        let now = ContinuousClock.now
        refreshTimes.removeAll { now - $0 > limit.window }
        guard refreshTimes.count < limit.count else {
            throw SluiceError(
                .authenticationExcessiveRefresh,
                "\(refreshTimes.count) credential refreshes within \(limit.window); giving up")
        }
        refreshTimes.append(now)
        let task = Task { try await authenticator.refresh(credential, for: session) }
        refreshing = task
        defer { refreshing = nil }
        do {
            let fresh = try await task.value
            self.credential = fresh
            refreshCount += 1
            return fresh
        } catch {
            throw SluiceError.wrapping(error, as: .authenticationRefreshFailed, "refreshing the credential failed")
        }
    }
}
