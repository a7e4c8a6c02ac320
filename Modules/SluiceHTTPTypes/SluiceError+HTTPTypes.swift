import SluiceCore

extension SluiceError.Code {
    /// A swift-http-types request or response that has no SluiceCore form, or the other way round: a
    /// request without a scheme, authority or path (a `CONNECT` or `OPTIONS *` request), an extended
    /// `CONNECT`, a scheme other than `http` or `https`, a status code outside 0–999.
    public static let httpTypesUnsupported: Self = "httpTypes.unsupported"
}
