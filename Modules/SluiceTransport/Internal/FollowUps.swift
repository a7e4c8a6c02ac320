import Foundation
import SluiceCore

/// A call's follow-ups — redirects and authentication rounds, one hop at a time — as a value with no
/// locks, no C and no I/O: the pipeline's follow-up step tells it how each hop was answered and
/// carries out the action it returns.
///
/// ```
/// hop answered ─► 3xx with Location ─► (policy refuses) ────────────────────────────────► deliver
///      │              │ plan ─► too many / unusable Location ─────────────────────────────► fail
///      │              └──► follow(next) / askPolicy ─► policyAnswered ─► follow / deliver
///      ├─► 401, handler, not asked yet, not a stream ─► askChallengeHandler
///      │                               └─► challengeAnswered ─► retry(credential) / deliver
///      └─► anything else ─────────────────────────────────────────────────────────────────► deliver
/// ```
struct FollowUps: Sendable {
    /// What the follow-up step does next.
    enum Action: Sendable {
        /// The hop's answer is the call's.
        case deliver
        /// Send this request as the next hop (a redirect).
        case follow(HTTPRequest)
        /// Ask the policy's closure about the planned redirect; then ``policyAnswered(_:leavesOrigin:)``.
        case askPolicy(proposed: HTTPRequest, leavesOrigin: Bool)
        /// Ask the challenge handler for a credential; then ``challengeAnswered(_:)``.
        case askChallengeHandler
        /// Send the same request again with this credential.
        case retry(Credential)
        /// The call fails.
        case fail(SluiceError)
    }

    /// What the call does with its body: a streamed call never waits for a challenge handler.
    let kind: SessionTask.Kind
    /// The redirect policy: the request's own, else the session's.
    let policy: RedirectPolicy
    /// Whether the session has a challenge handler.
    let hasChallengeHandler: Bool
    /// Redirects followed so far.
    private(set) var redirectCount = 0
    /// Whether the challenge handler was asked (once per call).
    private(set) var askedChallengeHandler = false
    /// Whether a followed redirect left the original origin: the session's credentials and default
    /// `Authorization` are not sent from then on.
    private(set) var leftOriginalOrigin = false
    /// The status of the hop now being decided on, and its request, for the answers. (The request, not
    /// its URL: a `URL`'s layout is known only at run time, and holding one made every copy of this
    /// value go through run-time type metadata.)
    private var pendingStatus = 0
    private var pendingRequest: HTTPRequest?

    init(kind: SessionTask.Kind, policy: RedirectPolicy, hasChallengeHandler: Bool) {
        self.kind = kind
        self.policy = policy
        self.hasChallengeHandler = hasChallengeHandler
    }

    /// Which answers the follow-ups may act on, as they stand: what a hop's transfer needs to know, at
    /// each head, to keep a body aside (small) instead of delivering it.
    struct Rule: Sendable, Equatable {
        /// The policy follows redirects (a 3xx with a `Location`).
        var followsRedirects = false
        /// A 401 goes to the challenge handler.
        var asksOn401 = false

        /// Whether a response with this status may be followed up.
        func mayFollow(statusCode: Int, hasLocation: Bool) -> Bool {
            switch statusCode {
            case 301, 302, 303, 307, 308: followsRedirects && hasLocation
            case 401: asksOn401
            default: false
            }
        }
    }

    /// The rule for the next hop.
    var rule: Rule {
        var policyFollows = true
        if case .refuse = policy { policyFollows = false }
        return Rule(
            followsRedirects: policyFollows,
            asksOn401: AuthenticationRetryPlanner.asksHandler(
                statusCode: 401, kind: kind, askedAlready: askedChallengeHandler, hasHandler: hasChallengeHandler))
    }

    /// Whether a hop answered with this status may be followed up: its body is then kept aside (small)
    /// instead of delivered, until the follow-ups decide.
    func mayFollow(statusCode: Int, hasLocation: Bool) -> Bool {
        rule.mayFollow(statusCode: statusCode, hasLocation: hasLocation)
    }

    /// Whether a hop answered with this status is the call's answer whatever its fields say (most
    /// are): the follow-up step then needs no ``answered(_:with:)``.
    func delivers(statusCode: Int) -> Bool {
        !(300...308).contains(statusCode)
            && !AuthenticationRetryPlanner.asksHandler(
                statusCode: statusCode, kind: kind, askedAlready: askedChallengeHandler, hasHandler: hasChallengeHandler)
    }

    /// The hop for `request` was answered with `response`.
    mutating func answered(_ request: HTTPRequest, with response: HTTPResponse) -> Action {
        pendingStatus = response.statusCode
        // The head's fields are read (and parsed) only for a redirect status.
        if (300...308).contains(response.statusCode),
            RedirectPlanner.follows(statusCode: response.statusCode, hasLocation: response.headers.contains("Location"), policy: policy),
            let maximum = RedirectPlanner.maximumRedirects(policy)
        {
            pendingRequest = request
            do throws(SluiceError) {
                let plan = try RedirectPlanner.plan(
                    following: request, response: response, redirectCount: redirectCount, maximum: maximum)
                if case .decide = policy { return .askPolicy(proposed: plan.request, leavesOrigin: plan.leavesOrigin) }
                return policyAnswered(plan.request, leavesOrigin: plan.leavesOrigin)
            } catch {
                return .fail(error)
            }
        }
        return challengeOrDeliver(statusCode: response.statusCode)
    }

    /// The policy answered (or, for ``RedirectPolicy/follow(maximum:)``, the plan stands): `next` to
    /// follow, `nil` to deliver the redirect.
    mutating func policyAnswered(_ next: HTTPRequest?, leavesOrigin: Bool) -> Action {
        guard let next else { return challengeOrDeliver(statusCode: pendingStatus) }
        if leavesOrigin || !RedirectPlanner.sameOrigin(next.url, pendingRequest?.url ?? next.url) { leftOriginalOrigin = true }
        redirectCount += 1
        return .follow(next)
    }

    /// The challenge handler answered: `credential` to retry with, `nil` to deliver the 401.
    mutating func challengeAnswered(_ credential: Credential?) -> Action {
        guard let credential else { return .deliver }
        return .retry(credential)
    }

    private mutating func challengeOrDeliver(statusCode: Int) -> Action {
        guard AuthenticationRetryPlanner.asksHandler(
            statusCode: statusCode, kind: kind, askedAlready: askedChallengeHandler, hasHandler: hasChallengeHandler)
        else { return .deliver }
        askedChallengeHandler = true
        return .askChallengeHandler
    }
}
