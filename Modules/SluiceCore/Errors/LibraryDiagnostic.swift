/// What a C library said when it reported a failure: its name, its numeric code and its message.
///
/// For libcurl the code is the `CURLcode` (or `CURLMcode`), for zlib the `Z_*` result, for libxml2 the
/// `xmlParserErrors` value.
public struct LibraryDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The library: `"libcurl"`, `"zlib"`, `"libxml2"`, or a plugin's name.
    public var library: String
    /// The library's own numeric code.
    public var code: Int
    /// The library's own message for the code, possibly with detail it added.
    public var message: String

    /// Creates a diagnostic.
    public init(library: String, code: Int, message: String) {
        self.library = library
        self.code = code
        self.message = message
    }

    /// The ``message`` of a loaded plugin's failure when the plugin gave none (it returned an error
    /// status without setting `*error_message`): `"no message"`.
    public static let noPluginMessage = "no message"

    /// `library code: message`.
    public var description: String { "\(library) \(code): \(message)" }
}
