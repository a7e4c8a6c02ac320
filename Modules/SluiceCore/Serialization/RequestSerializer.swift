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
}

extension RequestSerializer {
    /// `nil`.
    public var contentType: MediaType? { nil }
}
