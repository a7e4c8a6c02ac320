/// What a session does when a response redirects: the session's ``HTTPRequest/redirectPolicy`` when a
/// request has none of its own.
///
/// Whatever the policy, a followed redirect is rebuilt by the rules browsers use: `303`, and `301` or
/// `302` after a `POST`, become a `GET` without a body; `Authorization`, `Cookie` and
/// `Proxy-Authorization` are dropped when the redirect leaves the origin (scheme, host, port).
public enum RedirectPolicy: Sendable {
    /// Follow up to `maximum` redirects; one more fails with
    /// ``SluiceError/Code/tooManyRedirects``. Default maximum 16.
    case follow(maximum: Int = 16)
    /// Never follow: the redirect response is the task's response.
    case refuse
    /// Ask the closure for each redirect, with the request Sluice would send next and the redirect
    /// response. Return that request, a changed one, or `nil` to stop and deliver the redirect
    /// response. Up to `maximum` redirects.
    case decide(maximum: Int = 16, @Sendable (_ next: HTTPRequest, _ response: HTTPResponse) -> HTTPRequest?)
}
