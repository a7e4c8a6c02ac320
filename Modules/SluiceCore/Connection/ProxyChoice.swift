/// Whether and how requests use a proxy: a session's setting (`SessionConfiguration.proxy`), or a
/// request's own (``HTTPRequest/proxy``).
public enum ProxyChoice: Sendable, Hashable {
    /// The proxy the environment names, as curl and most Linux tools read it, when the session is made:
    /// `https_proxy` for `https` URLs, `http_proxy` for `http` URLs, else `all_proxy`; hosts in
    /// `no_proxy` directly. Each name is read in lower case, then upper case (`HTTP_PROXY` is left out
    /// when `REQUEST_METHOD` is set: in a CGI program a request's `Proxy` header becomes it). Nothing set
    /// means no proxy.
    case environment
    /// No proxy, whatever the environment says.
    case direct
    /// This proxy (its bypass list reached directly).
    case proxy(Proxy)
}
