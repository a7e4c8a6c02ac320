import Foundation

extension HTTPRequest {
    /// The header names whose values ``cURLDescription(maskingCredentials:)`` hides.
    public static let credentialHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// A `curl` command that sends this request, for debugging: method, headers, body and URL, each
    /// quoted for a POSIX shell.
    ///
    /// Bodies: UTF-8 bytes up to 4 KiB inline with `--data-binary`, other bytes as a comment with their
    /// size, a file as `--data-binary @path`, a stream as a comment.
    ///
    /// - Parameter maskingCredentials: Whether the values of `Authorization`, `Proxy-Authorization`,
    ///   `Cookie` and `Set-Cookie`, and a password in the URL, are replaced by `***`. Default `true`.
    public func cURLDescription(maskingCredentials: Bool = true) -> String {
        var parts = ["curl"]
        if method.rawValue != "GET" || body.isPresent { parts.append("-X \(Self.shellQuoted(method.rawValue))") }
        for header in headers {
            let masked = maskingCredentials && Self.credentialHeaderNames.contains(header.name.lowercased())
            parts.append("-H \(Self.shellQuoted("\(header.name): \(masked ? "***" : header.value)"))")
        }
        var comment: String?
        switch body {
        case .none:
            break
        case .bytes(let data):
            if data.count <= 4096, let text = String(data: data, encoding: .utf8) {
                parts.append("--data-binary \(Self.shellQuoted(text))")
            } else {
                comment = "# body: \(data.count) bytes not shown"
            }
        case .file(let path, let range):
            parts.append("--data-binary @\(Self.shellQuoted(path))")
            if let range { comment = "# body: bytes \(range.lowerBound)..<\(range.upperBound) of the file" }
        case .stream(let stream):
            comment = "# body: a stream of " + (stream.contentLength.map { "\($0) bytes" } ?? "unknown length")
        }
        parts.append(Self.shellQuoted(maskingCredentials ? Self.maskingPassword(in: url) : url.absoluteString))
        return parts.joined(separator: " \\\n\t") + (comment.map { "\n" + $0 } ?? "")
    }

    /// `text` in single quotes, with each `'` written `'\''` (a `'` followed by a combining mark too).
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingASCII { $0 == UInt8(ascii: "'") ? "'\\''" : nil } + "'"
    }

    private static func maskingPassword(in url: URL) -> String {
        guard url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.percentEncodedPassword = "***"
        return components.url?.absoluteString ?? url.absoluteString
    }
}
