import SluiceCore

extension SluiceError.Code {
    /// A custom query-string serialization closure threw; its error is the underlying error.
    public static let queryStringFailed: Self = "request.queryStringFailed"
    /// A parameter value cannot be written as JSON: a set, data, or a non-finite number.
    public static let jsonInvalidValue: Self = "request.jsonInvalidValue"
    /// `JSONEncoder` failed to encode an `Encodable` body; its error is the underlying error.
    public static let jsonEncodingFailed: Self = "request.jsonEncodingFailed"
    /// A value cannot be form-encoded: its top level is not keyed, or its encoding failed.
    public static let formEncodingFailed: Self = "request.formEncodingFailed"
}
