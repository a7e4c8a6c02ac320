import Foundation

/// Maps file-name extensions to MIME types, for file parts whose type is not given.
///
/// ``system`` reads `/etc/mime.types` (Debian's `media-types` package, the table other Linux programs
/// use) once, on first use; extensions it does not list come from a built-in table of common types;
/// anything else is `application/octet-stream`. Lookups ignore case.
public struct MIMETypeTable: Sendable {
    /// The MIME type for unknown extensions.
    public static let fallbackType = "application/octet-stream"

    /// The system's table (`/etc/mime.types`) over the built-in one.
    public static let system = MIMETypeTable(contentsOfFile: "/etc/mime.types")

    /// Only the built-in table of common types.
    public static let builtIn = MIMETypeTable(entries: [:])

    private let entries: [String: String]

    /// A table read from a file in `mime.types` format (`type ext ext …` per line, `#` comments),
    /// over the built-in table. A missing or unreadable file leaves only the built-in table.
    public init(contentsOfFile path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            self.init(entries: [:])
            return
        }
        self.init(entries: Self.parse(text))
    }

    /// A table of `extension → type` entries over the built-in table; extensions are matched
    /// without their leading dot and ignoring case.
    public init(entries: [String: String]) {
        var merged = Self.builtInEntries
        for (key, value) in entries { merged[Self.normalize(key)] = value }
        self.entries = merged
    }

    /// The MIME type for a file-name extension (`"png"` or `".png"`), or ``fallbackType``.
    public func mimeType(forPathExtension pathExtension: String) -> String {
        entries[Self.normalize(pathExtension)] ?? Self.fallbackType
    }

    /// The MIME type for the extension of the last component of `path`, or ``fallbackType`` when it
    /// has none or an unknown one.
    public func mimeType(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return Self.fallbackType }
        return mimeType(forPathExtension: String(name[name.index(after: dot)...]))
    }

    /// `mime.types` lines → `extension → type`; the first line naming an extension wins, as
    /// `run-mailcap` reads it.
    static func parse(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count > 1, fields[0].contains("/") else { continue }
            for pathExtension in fields.dropFirst() {
                let key = normalize(String(pathExtension))
                if result[key] == nil { result[key] = String(fields[0]) }
            }
        }
        return result
    }

    private static func normalize(_ pathExtension: String) -> String {
        (pathExtension.hasPrefix(".") ? String(pathExtension.dropFirst()) : pathExtension).lowercased()
    }

    /// Common types, for systems without `/etc/mime.types`.
    static let builtInEntries: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
        "mjs": "text/javascript", "md": "text/markdown", "xml": "application/xml",
        "json": "application/json", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic",
        "avif": "image/avif", "mp3": "audio/mpeg", "wav": "audio/x-wav", "ogg": "audio/ogg",
        "flac": "audio/flac", "m4a": "audio/mp4", "mp4": "video/mp4", "m4v": "video/mp4",
        "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "avi": "video/x-msvideo", "plist": "application/x-plist", "wasm": "application/wasm",
        "doc": "application/msword", "xls": "application/vnd.ms-excel",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "rtf": "application/rtf", "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf",
        "otf": "font/otf", "yaml": "application/yaml", "yml": "application/yaml",
    ]
}
