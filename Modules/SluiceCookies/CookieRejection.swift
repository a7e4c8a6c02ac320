/// Why a `Set-Cookie` field made no cookie: RFC 6265 §5.2 and §5.3 say to "ignore the cookie entirely", and this
/// says which rule did.
public enum CookieRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request URL is not `http`, `https`, `ws` or `wss`, or has no host.
    case unsupportedURL
    /// The name-value pair (before the first `;`) has no `=` (§5.2 step 2).
    case missingEquals
    /// The name is empty once trimmed (§5.2 step 5): `=value` and ` =value` set nothing.
    case emptyName
    /// The field holds a control character (`%x00-08`, `%x0A-1F`, `%x7F`; RFC 6265bis §5.6 step 2), or the name or
    /// value holds a tab between other characters (no cookie file could carry it).
    case controlCharacter
    /// The name and value together are longer than 4096 bytes (RFC 6265bis §5.6 step 7).
    case tooLarge
    /// The `Domain` attribute names a domain the request's host does not domain-match (§5.3 step 6): a host may set
    /// cookies for itself and its parent domains only.
    case domainMismatch(domain: String)
    /// The `Domain` attribute is a public suffix (`com`, `co.uk`, `github.io`) other than the host itself (§5.3
    /// step 5).
    case publicSuffix(domain: String)
    /// The cookie is `Secure` but came over a connection that is not (RFC 6265bis §5.6 step 8).
    case secureFromInsecureOrigin
    /// A `__Secure-` cookie without `Secure`, or a `__Host-` cookie without `Secure`, with a `Domain` attribute or
    /// with a path other than `/` (RFC 6265bis §4.1.3).
    case prefixMismatch
    /// A cookie from a connection that is not secure would replace or shadow a `Secure` cookie of the same name
    /// (RFC 6265bis §5.7 step 16); judged by ``CookieStore`` only.
    case overlaysSecureCookie

    /// The rule, in a sentence.
    public var description: String {
        switch self {
        case .unsupportedURL: "the request URL is not an http(s) or ws(s) URL with a host"
        case .missingEquals: "the name-value pair has no '='"
        case .emptyName: "the cookie name is empty"
        case .controlCharacter: "the field holds a control character"
        case .tooLarge: "the name and value are longer than 4096 bytes"
        case .domainMismatch(let domain): "the request host does not domain-match Domain=\(domain)"
        case .publicSuffix(let domain): "Domain=\(domain) is a public suffix"
        case .secureFromInsecureOrigin: "a Secure cookie came over a connection that is not secure"
        case .prefixMismatch: "the __Secure- or __Host- name prefix's requirements are not met"
        case .overlaysSecureCookie: "the cookie would overlay a Secure cookie from a connection that is not secure"
        }
    }
}
