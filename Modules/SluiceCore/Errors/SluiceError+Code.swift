extension SluiceError {
    /// A stable identifier of a kind of failure, written `area.reason` (for example `header.invalidValue`).
    ///
    /// Codes never change meaning once released. Modules add their own codes as static members in an
    /// extension; `docs/errors.md` lists them all.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The code's stable string.
        public let rawValue: String

        /// Creates a code from its stable string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Creates a code from a string literal.
        public init(stringLiteral value: String) { self.rawValue = value }

        /// The part before the first dot: the area the code belongs to (`header`, `registry`, ...).
        public var area: Substring { rawValue.prefix { $0 != "." } }

        /// A stable positive number for `NSError` bridging: the 31-bit FNV-1a hash of ``rawValue``.
        public var numericValue: Int {
            var hash: UInt32 = 2_166_136_261
            for byte in rawValue.utf8 {
                hash ^= UInt32(byte)
                hash = hash &* 16_777_619
            }
            return Int(hash & 0x7fff_ffff)
        }

        /// The stable string.
        public var description: String { rawValue }
    }
}

extension SluiceError.Code {
    // MARK: Headers

    /// A header name is empty or holds a character that is not allowed in an HTTP token
    /// (CR, LF, NUL, space, colon, or another separator).
    public static let invalidHeaderName: Self = "header.invalidName"
    /// A header value holds CR, LF or NUL (header injection) or another control character.
    public static let invalidHeaderValue: Self = "header.invalidValue"

    // MARK: Requests and media types

    /// A URL could not be parsed or resolved against its base URL.
    public static let invalidURL: Self = "request.invalidURL"
    /// An HTTP method is empty or is not an HTTP token.
    public static let invalidMethod: Self = "request.invalidMethod"
    /// A request's timeout is zero, negative or not a number.
    public static let invalidTimeout: Self = "request.invalidTimeout"
    /// A media type (such as a Content-Type value) could not be parsed.
    public static let invalidMediaType: Self = "mediaType.invalid"

    // MARK: Parameters

    /// An `Encodable` value could not be turned into ``Parameters``.
    public static let parametersEncodingFailed: Self = "parameters.encodingFailed"

    // MARK: Request bodies

    /// A body file path does not name an existing file.
    public static let bodyFileNotFound: Self = "body.fileNotFound"
    /// A body file path names a directory, or something else that is not a regular file.
    public static let bodyNotAFile: Self = "body.notAFile"
    /// A body file exists but cannot be opened or read.
    public static let bodyFileUnreadable: Self = "body.fileUnreadable"
    /// A body's byte range lies outside its file.
    public static let bodyInvalidRange: Self = "body.invalidRange"
    /// A body stream ended before, or ran past, the length it declared.
    public static let bodyLengthMismatch: Self = "body.lengthMismatch"
    /// A body stream failed to produce its bytes.
    public static let bodyStreamFailed: Self = "body.streamFailed"
    /// A body stream was asked to rewind but cannot.
    public static let bodyNotRewindable: Self = "body.notRewindable"

    // MARK: Content codings

    /// A content coding's output grew past its configured byte limit (decompression bomb guard).
    public static let contentCodingOutputLimit: Self = "contentCoding.outputLimitExceeded"
    /// A content coding's output-to-input ratio grew past its configured limit.
    public static let contentCodingRatioLimit: Self = "contentCoding.ratioLimitExceeded"
    /// Encoded input is corrupt.
    public static let contentCodingCorrupt: Self = "contentCoding.corruptInput"
    /// Encoded input ended before the encoding's end.
    public static let contentCodingTruncated: Self = "contentCoding.truncatedInput"
    /// No registered content coding has the requested name.
    public static let contentCodingUnsupported: Self = "contentCoding.unsupported"

    // MARK: Registry and plugins

    /// A plugin with the same name is already registered and replacing was not asked for.
    public static let pluginDuplicate: Self = "registry.duplicatePlugin"
    /// A plugin describes itself inconsistently (empty name, malformed version or media type).
    public static let pluginInvalid: Self = "registry.invalidPlugin"
    /// No registered plugin or serializer answers the lookup.
    public static let pluginNotFound: Self = "registry.notFound"
    /// A plugin library could not be opened (missing file, not a shared library, unresolved symbols).
    public static let pluginLoadFailed: Self = "registry.loadFailed"
    /// A plugin library exports no `sluice_plugin_entry`, or it returned no table.
    public static let pluginMissingEntryPoint: Self = "registry.missingEntryPoint"
    /// A plugin library was built for another version of the plugin ABI.
    public static let pluginIncompatibleABI: Self = "registry.incompatibleABI"
    /// A loaded plugin reported an error while decoding or encoding (its status and message are in
    /// `library`), returned invalid JSON, or answered outside the plugin ABI's contract: output longer
    /// than its limit, a length without a buffer, or success without output (no `library` then).
    public static let pluginFailed: Self = "registry.pluginFailed"
}
