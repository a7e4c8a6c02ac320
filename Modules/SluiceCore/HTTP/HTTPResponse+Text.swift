import Foundation

extension SluiceError.Code {
    /// A body is not valid text in the charset its `Content-Type` declares, or declares a charset Sluice
    /// cannot decode.
    public static let stringDecodingFailed: Self = "response.stringDecodingFailed"
}

extension HTTPResponse {
    /// `body` as text in the charset this response's `Content-Type` declares (UTF-8, UTF-16 with or
    /// without a byte order mark, Latin-1, the Windows code pages, …), or in `defaultEncoding` when it
    /// declares none. A byte order mark at the start of UTF-8 or UTF-16 text is dropped.
    ///
    /// A declared charset is taken at its word: a plugin that decodes text through this never reads
    /// UTF-16 as UTF-8 garbage nor guesses at a charset it does not know.
    ///
    /// - Parameters:
    ///   - body: The bytes to decode: this response's body, or any part of it.
    ///   - defaultEncoding: The encoding of a body whose type declares no charset. Default UTF-8.
    /// - Throws: ``SluiceError`` with ``SluiceError/Code/stringDecodingFailed`` when the declared charset
    ///   is unknown, or the bytes are not valid text in it (or in `defaultEncoding`); the error carries
    ///   this response and the body.
    public func text(of body: Data, defaultEncoding: String.Encoding = .utf8) throws(SluiceError) -> String {
        var encoding = defaultEncoding
        if let charset = textEncodingName {
            guard let declared = stringEncoding else {
                throw SluiceError(
                    .stringDecodingFailed, "the declared charset \(charset.debugDescription) is not one Sluice can decode",
                    response: self, body: body)
            }
            encoding = declared
        }
        var bytes = body
        if encoding == .utf8, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if encoding == .utf16 {
            // A byte order mark says the order; without one, RFC 2781 says big-endian.
            if bytes.starts(with: [0xFF, 0xFE]) {
                encoding = .utf16LittleEndian
                bytes = bytes.dropFirst(2)
            } else if bytes.starts(with: [0xFE, 0xFF]) {
                encoding = .utf16BigEndian
                bytes = bytes.dropFirst(2)
            } else {
                encoding = .utf16BigEndian
            }
        } else if encoding == .utf16LittleEndian, bytes.starts(with: [0xFF, 0xFE]) {
            bytes = bytes.dropFirst(2)
        } else if encoding == .utf16BigEndian, bytes.starts(with: [0xFE, 0xFF]) {
            bytes = bytes.dropFirst(2)
        }
        if (encoding == .utf16LittleEndian || encoding == .utf16BigEndian), bytes.count % 2 != 0 {
            throw SluiceError(
                .stringDecodingFailed, "the body is not valid \(textEncodingName ?? "UTF-16") text: an odd number of bytes",
                response: self, body: body)
        }
        guard let text = String(data: Data(bytes), encoding: encoding) else {
            throw SluiceError(
                .stringDecodingFailed,
                "the body is not valid \(textEncodingName ?? "\(encoding)") text"
                    + (textEncodingName == nil ? " (its Content-Type declares no charset)" : ", the charset its Content-Type declares"),
                response: self, body: body)
        }
        return text
    }
}
