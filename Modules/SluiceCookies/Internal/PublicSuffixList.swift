import CPSL

/// The public-suffix list, through libpsl (the library libcurl uses for the same check).
///
/// The list is the newer of libpsl's built-in copy and the system's (`/usr/share/publicsuffix`, Debian's
/// `publicsuffix` package), loaded once on first use and kept for the life of the process. libpsl's contexts are
/// read-only once loaded, so any thread may query them.
enum PublicSuffixList {
    /// libpsl's context; never freed (it lives as long as the process).
    private nonisolated(unsafe) static let context: OpaquePointer? = psl_latest(nil) ?? psl_builtin()

    /// Whether `domain` (lowercase) is a public suffix — `com`, `co.uk`, `github.io`, or a top-level domain the
    /// list does not know (its `*` rule) — in either section of the list.
    static func isPublicSuffix(_ domain: String) -> Bool {
        guard let context, !domain.isEmpty else { return false }
        return psl_is_public_suffix2(context, domain, sluice_psl_type_any()) != 0
    }

    /// The registrable domain of `domain` (the public suffix and one more label: `example.co.uk` for
    /// `www.example.co.uk`), or `domain` itself when it has none (an IP address, a public suffix).
    static func registrableDomain(of domain: String) -> String {
        guard let context, !domain.isEmpty, !CookieMatching.isIPAddress(domain) else { return domain }
        return domain.withCString { start -> String in
            // libpsl returns a pointer into the string it was given.
            guard let found = psl_registrable_domain(context, start) else { return domain }
            return String(cString: found)
        }
    }
}
