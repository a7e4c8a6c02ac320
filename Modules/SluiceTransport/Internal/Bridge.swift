import Foundation
import SluiceCore

/// The pipeline's bridge: what the session adds to every hop's request, so the layers below it (the
/// cache, the network layers) see the request as it will be sent.
///
/// Adds the session's default headers (without `Authorization`, `Cookie` and `Proxy-Authorization`
/// once a redirect left the original origin), `Authorization` for a Basic-only credential (at its
/// origin, when the request has none), `Accept-Encoding` for the registry's content codings, and
/// `Content-Encoding` for a body the session encodes; removes `Content-Length` and
/// `Transfer-Encoding`, which the transfer computes from the body, and the session's ``CookieStorage``'s
/// `Cookie` field (when there is one, the request handles cookies and carries no `Cookie` of its own). On
/// the way back, the body has been decoded with the codings it asked for (the exchange does that as the
/// bytes arrive), and ``storeCookies(of:for:configuration:)`` gives the storage the answer's head.
enum Bridge {
    /// `request` as the session sends it.
    static func prepare(
        _ request: HTTPRequest, configuration shared: SharedConfiguration, leftOriginalOrigin: Bool,
        authorization: String? = nil
    ) -> HTTPRequest {
        // Read in place (`shared.value.…`): a copy of the configuration costs a retain and a release of each
        // of its fields.
        let defaults = shared.value.defaultHeaders
        let accept = shared.value.registry.acceptEncoding
        let encodes = request.contentEncoding != nil && request.body.isPresent
        let headers = request.headers
        let cookie = cookieHeader(for: request, configuration: shared)
        // Most requests need nothing: no copy of the request is made for them.
        if defaults.isEmpty, !encodes, authorization == nil, cookie == nil, accept == nil || headers.contains("Accept-Encoding"),
            !headers.contains("Content-Length"), !headers.contains("Transfer-Encoding")
        {
            return request
        }
        var merged: HTTPHeaders
        if defaults.isEmpty {
            merged = headers
        } else {
            var defaults = defaults
            if leftOriginalOrigin {
                for name in RedirectPlanner.originBoundHeaders { defaults.remove(name) }
            }
            merged = defaults.merging(headers)
        }
        merged.remove("Content-Length")
        merged.remove("Transfer-Encoding")
        if encodes, let name = request.contentEncoding,
            let coding = shared.value.registry.contentCoding(named: name), coding.canEncode,
            let field = try? HTTPHeader(name: "Content-Encoding", value: coding.name)
        {
            merged.replace(with: field)
        }
        if let authorization, !merged.contains("Authorization"),
            let field = try? HTTPHeader(name: "Authorization", value: authorization)
        {
            merged.add(field)
        }
        if !merged.contains("Accept-Encoding"), let accept, let field = try? HTTPHeader(name: "Accept-Encoding", value: accept) {
            merged.add(field)
        }
        if let cookie, !merged.contains("Cookie"), let field = try? HTTPHeader(name: "Cookie", value: cookie) {
            merged.add(field)
        }
        var prepared = request
        prepared.headers = merged
        return prepared
    }

    /// The storage's `Cookie` field for `request`, when the session has a storage, handles cookies, and
    /// the request handles them and carries no `Cookie` field of its own.
    private static func cookieHeader(for request: HTTPRequest, configuration shared: SharedConfiguration) -> String? {
        guard shared.cookiesInStorage, request.shouldHandleCookies, let storage = shared.value.cookieStorage,
            !request.headers.contains("Cookie")
        else { return nil }
        return storage.cookieHeader(for: request.url)
    }

    /// Gives the session's ``CookieStorage`` the head of an answer from the network to `request` (a stored
    /// answer set its cookies when it first came).
    static func storeCookies(of answer: HTTPLayerResponse, for request: HTTPRequest, configuration shared: SharedConfiguration) {
        guard shared.cookiesInStorage, request.shouldHandleCookies, let storage = shared.value.cookieStorage,
            answer.source.usedNetwork, answer.response.headers.contains("Set-Cookie")
        else { return }
        storage.storeCookies(from: answer.response.headers, for: request.url)
    }

    /// `Basic` and the base64 of `user:password` in UTF-8 (RFC 7617).
    static func basicAuthorization(_ credential: Credential) -> String {
        "Basic " + Data("\(credential.user):\(credential.password)".utf8).base64EncodedString()
    }
}
