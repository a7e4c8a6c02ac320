import Foundation

/// Builds the request to send from a request and parameters: where the parameters go (query or
/// body), how they are encoded, and which headers come with them.
///
/// Implementations are `Sendable`: one serializer builds requests from many threads at once. They may
/// be values (a serializer with fixed settings) or, as Sluice's own `HTTPRequestSerializer` and
/// `JSONRequestSerializer` are, AFNetworking-style shared references whose settings may be changed while
/// in use (under a lock): a change then applies to every request built afterwards by everyone holding it.
public protocol RequestSerializer: Sendable {
    /// The media type of the bodies this serializer writes (`application/json`), or `nil` when it
    /// writes none of its own. Default `nil`.
    var contentType: MediaType? { get }

    /// Returns `request` with `parameters` applied and the serializer's headers added.
    ///
    /// - Parameters:
    ///   - request: The request to start from: URL, method, headers already chosen.
    ///   - parameters: The parameters to encode, or `nil` for none.
    /// - Throws: ``SluiceError`` when the parameters cannot be encoded this way; no request is made.
    func serialize(_ request: HTTPRequest, with parameters: Parameters?) throws(SluiceError) -> HTTPRequest

    /// A request for `method` and `urlString` resolved against `baseURL`, with this serializer's
    /// per-request settings (timeout, cookies, cache policy), before headers and parameters: what a
    /// manager with a base URL starts every request from.
    ///
    /// Default: the URL resolved and the method set; every other setting the request's own default.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL`` when `urlString` does not
    ///   resolve to an absolute `http` or `https` URL with a host.
    func makeRequest(method: HTTPMethod, urlString: String, relativeTo baseURL: URL?) throws(SluiceError) -> HTTPRequest

    /// `parameters` as the separate fields of a form body (a multipart form): each field's name and
    /// bytes, in order; or `nil` for the standard rules, AFNetworking's (nested keys `user[name]`, arrays
    /// `tags[]`, keys sorted, booleans `1`/`0`, data as its bytes).
    ///
    /// Default `nil`.
    func formFields(from parameters: Parameters) -> [FormField]?
}

extension RequestSerializer {
    /// `nil`.
    public var contentType: MediaType? { nil }

    /// The URL resolved against `baseURL`, the method set, nothing else.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidURL``.
    public func makeRequest(method: HTTPMethod, urlString: String, relativeTo baseURL: URL?) throws(SluiceError)
        -> HTTPRequest
    {
        try HTTPRequest(urlString: urlString, relativeTo: baseURL, method: method)
    }

    /// `nil`: the standard rules.
    public func formFields(from parameters: Parameters) -> [FormField]? { nil }
}
