import Foundation
import SluiceCore

/// Decides redirects, with no I/O: which responses are followed, and the request a followed redirect
/// sends — its URL resolved against the current one, its method and body by the status (`303`, and
/// `301`/`302` after `POST`, become a bodiless `GET`), and without the credentials that may not leave
/// the origin. The redirect policy's closure, the user's code, is not run here: the transfer runs it on
/// the planned request.
enum RedirectPlanner {
    /// A followed redirect.
    struct Plan {
        /// The request to send next.
        var request: HTTPRequest
        /// Whether it goes to another origin than the request it follows.
        var leavesOrigin: Bool
    }

    /// The credentials a redirect to another origin drops: the request's own, and the session's
    /// defaults from then on.
    static let originBoundHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Whether a response with this status is followed: a `301`, `302`, `303`, `307` or `308` with a
    /// `Location`, under a policy that follows at all.
    static func follows(statusCode: Int, hasLocation: Bool, policy: RedirectPolicy) -> Bool {
        switch statusCode {
        case 301, 302, 303, 307, 308: guard hasLocation else { return false }
        default: return false
        }
        if case .refuse = policy { return false }
        return true
    }

    /// The most redirects `policy` follows, or `nil` for a policy that follows none.
    static func maximumRedirects(_ policy: RedirectPolicy) -> Int? {
        switch policy {
        case .refuse: nil
        case .follow(let maximum), .decide(let maximum, _): maximum
        }
    }

    /// The request that follows `response` to `request`, after `redirectCount` redirects.
    ///
    /// - Throws: ``SluiceError/Code/tooManyRedirects`` when `redirectCount` reached `maximum`;
    ///   ``SluiceError/Code/redirectRefused`` for a missing `Location` or one that is not `http`/`https`.
    /// Whether a redirect may lead to `target`: an `http` or `https` URL, or a URL on the same Unix socket
    /// as `source` (a server on a socket redirecting within itself). A server elsewhere never sends the
    /// client to a local socket.
    static func mayRedirect(from source: URL, to target: URL) -> Bool {
        let scheme = target.scheme?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" { return true }
        guard HTTPRequest.unixSocketScheme(scheme) != nil else { return false }
        return source.scheme?.lowercased() == scheme && source.host(percentEncoded: false) == target.host(percentEncoded: false)
    }

    static func plan(
        following request: HTTPRequest, response: HTTPResponse, redirectCount: Int, maximum: Int
    ) throws(SluiceError) -> Plan {
        guard redirectCount < maximum else {
            throw SluiceError(.tooManyRedirects, "more than \(maximum) redirects", request: request, response: response)
        }
        guard let location = response.headers.first("Location"),
            let url = URL(string: location, relativeTo: request.url)?.absoluteURL,
            mayRedirect(from: request.url, to: url)
        else {
            throw SluiceError(
                .redirectRefused, "unusable redirect Location \(response.headers.first("Location") ?? "")",
                request: request, response: response)
        }
        var next = request
        next.url = url
        let status = response.statusCode
        if (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post) {
            next.method = .get
            next.body = .none
            next.headers.remove("Content-Type")
            next.headers.remove("Content-Encoding")
        }
        let leavesOrigin = !sameOrigin(request.url, url)
        if leavesOrigin {
            for name in originBoundHeaders { next.headers.remove(name) }
        }
        return Plan(request: next, leavesOrigin: leavesOrigin)
    }

    /// Whether two URLs share an origin: scheme and host compared without case, and the port (the
    /// scheme's default when absent).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }
}
