import Foundation
import SluiceCore

extension CookieStore: CookieStorage {
    /// The `Cookie` field for a request to `url` now (``cookieHeader(for:at:)``).
    public func cookieHeader(for url: URL) -> String? { cookieHeader(for: url, at: Date()) }

    /// Keeps the cookies of `responseHeaders`' `Set-Cookie` fields (``setCookies(from:for:at:)``); a field
    /// the rules refuse is left out.
    public func storeCookies(from responseHeaders: HTTPHeaders, for url: URL) {
        _ = setCookies(from: responseHeaders, for: url, at: Date())
    }
}
