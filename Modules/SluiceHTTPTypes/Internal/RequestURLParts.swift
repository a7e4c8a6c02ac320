import Foundation

/// An absolute `http` or `https` URL cut into the parts HTTP/2 names with pseudo-header fields: the
/// scheme, the authority (host and port, without user name and password), and the path with its query,
/// by bytes, keeping every escape as written. The fragment is not part of a request and is left out.
struct RequestURLParts: Equatable {
    var scheme: String
    var authority: String
    var path: String

    init?(_ url: URL) {
        let text = Array(url.absoluteString.utf8)
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")),
            text.count >= colon + 3, text[colon + 1] == UInt8(ascii: "/"), text[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let authorityStart = colon + 3
        var authorityEnd = authorityStart
        while authorityEnd < text.count, !Self.endsAuthority(text[authorityEnd]) { authorityEnd += 1 }
        var hostStart = authorityStart
        // Credentials end at the last "@" of the authority; they are not part of :authority.
        if let at = text[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        guard hostStart < authorityEnd else { return nil }
        var pathEnd = authorityEnd
        while pathEnd < text.count, text[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        var path = String(decoding: text[authorityEnd..<pathEnd], as: UTF8.self)
        if path.utf8.first != UInt8(ascii: "/") { path = "/" + path }
        scheme = String(decoding: text[..<colon], as: UTF8.self).lowercased()
        authority = String(decoding: text[hostStart..<authorityEnd], as: UTF8.self)
        self.path = path
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }
}
