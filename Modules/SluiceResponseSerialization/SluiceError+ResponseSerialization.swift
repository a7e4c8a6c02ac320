import SluiceCore

extension SluiceError.Code {
    /// The response's status is not in the serializer's acceptable status codes.
    public static let unacceptableStatusCode: Self = "response.unacceptableStatusCode"
    /// The response's MIME type is not in the serializer's acceptable content types.
    public static let unacceptableContentType: Self = "response.unacceptableContentType"
    /// The body is not valid JSON.
    public static let invalidJSON: Self = "response.invalidJSON"
    /// A value was required but the body was empty.
    public static let emptyResponse: Self = "response.emptyResponse"
    /// A `Decodable` value could not be decoded from the body; the decoder's error is underneath.
    public static let decodingFailed: Self = "response.decodingFailed"
    /// An image's bytes do not match its `Content-Type`, its header is unreadable, or its header gives a
    /// size its format does not allow (a zero side, or one past the format's range).
    public static let invalidImage: Self = "response.invalidImage"
    // stringDecodingFailed (the string serializer's refusal) is declared in SluiceCore, beside
    // HTTPResponse.text(of:), which plugins use.
}
