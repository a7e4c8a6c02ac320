import SluiceCore

extension SluiceError.Code {
    /// A file part was given a URL that is not a `file:` URL.
    public static let multipartNotAFileURL: Self = "multipart.notAFileURL"
    /// A multipart form was asked of a `GET` or `HEAD` request, which cannot carry a body.
    public static let multipartMethodNotAllowed: Self = "multipart.methodNotAllowed"
    /// The body-building closure threw an error that is not a ``SluiceError``; it is the underlying error.
    public static let multipartConstructionFailed: Self = "multipart.constructionFailed"
    /// A part's declared length is negative, or a stream part has no length.
    public static let multipartInvalidLength: Self = "multipart.invalidLength"
    /// A stream part ended before its declared length.
    public static let multipartPartEndedEarly: Self = "multipart.partEndedEarly"
    /// A stream part had more bytes than its declared length.
    public static let multipartPartTooLong: Self = "multipart.partTooLong"
    /// The body to write to a file is not a stream, or writing it (creating, writing, moving the
    /// file) failed; no partial file is left behind.
    public static let multipartWriteFailed: Self = "multipart.writeFailed"
}
