extension HTTPCookie {
    /// A cookie's `SameSite` attribute (RFC 6265bis): which cross-site requests a browser attaches it to.
    ///
    /// A ``CookieStore`` keeps the attribute but does not enforce it: enforcing it needs the site that started a
    /// request (the page, the frame), and a client has none. Every cookie is sent as it would be for a same-site
    /// request.
    public enum SameSite: String, Sendable, Hashable, Codable, CaseIterable {
        /// `SameSite=Strict`: same-site requests only.
        case strict
        /// `SameSite=Lax`: same-site requests and top-level navigations.
        case lax
        /// `SameSite=None`: every request.
        case none
        /// No `SameSite` attribute, or a value that is none of `Strict`, `Lax` and `None`.
        case unspecified
    }
}
