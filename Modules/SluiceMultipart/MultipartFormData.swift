import Foundation
import SluiceCore

/// What the body-building closure of a multipart request receives: the parts are appended in the
/// order they are sent.
///
/// Nothing is read while the form is built: files are checked (they exist, are regular files and
/// can be opened) and their sizes noted; bytes, files and streams are read only while the body is
/// sent. ``StreamingMultipartFormData`` is the implementation.
///
/// Names and file names are written into `Content-Disposition` quoted, with `"`, CR and LF
/// percent-encoded (`%22`, `%0D`, `%0A`) as the HTML form-submission rules require.
public protocol MultipartFormData: AnyObject, Sendable {
    /// The boundary between the parts.
    var boundary: MultipartBoundary { get }

    /// Appends the file at `fileURL` as a file part named `name`; the file name is the URL's last
    /// path component and the MIME type comes from its extension (``MIMETypeTable/system``).
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/multipartNotAFileURL`` (not a `file:`
    ///   URL), ``SluiceError/Code/bodyFileNotFound``, ``SluiceError/Code/bodyNotAFile`` (a directory
    ///   or device) or ``SluiceError/Code/bodyFileUnreadable``. Nothing is appended then.
    func appendPart(fileURL: URL, name: String) throws(SluiceError)

    /// Appends the file at `fileURL` as a file part with the given name, file name and MIME type.
    ///
    /// - Throws: As ``appendPart(fileURL:name:)``, or ``SluiceError/Code/invalidHeaderValue`` when
    ///   `mimeType` holds CR, LF or another control character.
    func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws(SluiceError)

    /// Appends a part whose body is pulled from `stream`, which must produce exactly `length` bytes.
    /// The stream is read only while the body is sent; a stream that ends early or runs long fails
    /// the upload with ``SluiceError/Code/multipartPartEndedEarly`` or
    /// ``SluiceError/Code/multipartPartTooLong``.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/multipartInvalidLength`` when `length`
    ///   is negative, or ``SluiceError/Code/invalidHeaderValue`` for a bad `mimeType`.
    func appendPart(
        stream: any BodyStream, length: Int64, name: String, fileName: String, mimeType: String
    ) throws(SluiceError)

    /// Appends `data` as a file part (with a file name and a MIME type).
    ///
    /// - Throws: ``SluiceError/Code/invalidHeaderValue`` for a bad `mimeType`.
    func appendPart(data: Data, name: String, fileName: String, mimeType: String) throws(SluiceError)

    /// Appends `data` as a plain form field: a `Content-Disposition` header and the bytes.
    func appendPart(formData data: Data, name: String)

    /// Appends a part with exactly `headers` and `body`: bytes, a file (or a range of it), or a
    /// stream that declares its length.
    ///
    /// - Throws: ``SluiceError/Code/multipartInvalidLength`` for a stream without a length, or what a
    ///   file body's checks throw (see ``appendPart(fileURL:name:)``).
    func appendPart(headers: HTTPHeaders, body: HTTPBody) throws(SluiceError)

    /// Sends the body in packets of `throttle.packetSize` bytes with `throttle.delay` between them;
    /// `nil` (the default) sends as fast as the connection takes it.
    func throttleBandwidth(_ throttle: MultipartThrottle?)
}
