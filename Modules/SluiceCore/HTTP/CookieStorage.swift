import Foundation

/// Where a session keeps cookies, in place of libcurl's own engine: the session asks it for the `Cookie`
/// field of each hop's request (each redirect and authentication round too) and hands it each hop's
/// response head that came over the network, so it can keep the `Set-Cookie` fields.
///
/// SluiceCookies' `CookieStore` is one (RFC 6265, readable and writable, saved to curl's cookie file); a
/// session given one (`SessionConfiguration.cookieStorage`) shares it with every other session given the
/// same instance.
public protocol CookieStorage: Sendable {
    /// The `Cookie` field value for a request to `url`, or `nil` for none.
    func cookieHeader(for url: URL) -> String?

    /// Keeps what `responseHeaders`' `Set-Cookie` fields set, for a response to a request to `url`.
    func storeCookies(from responseHeaders: HTTPHeaders, for url: URL)
}
