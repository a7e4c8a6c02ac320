import Foundation
import SluiceCore

/// A stored response freshened by a `304 Not Modified` (RFC 9111 §4.3.4 and §3.2). Pure.
enum Revalidation {
    /// Fields a 304 never changes in the stored head: those that describe the stored body, and
    /// connection-specific ones.
    static let keptFields: Set<String> = [
        "content-length", "content-encoding", "content-range", "transfer-encoding", "trailer", "connection",
        "keep-alive", "proxy-connection", "te", "upgrade",
    ]

    /// Whether the 304's validators select `stored` (RFC 9111 §4.3.4): its `ETag` matches by weak
    /// comparison, else its `Last-Modified` equals the stored one; a 304 with neither selects it.
    static func selects(_ stored: CachedResponse, notModified headers: HTTPHeaders) -> Bool {
        if let etag = headers.first("ETag") {
            guard let storedTag = stored.headers.first("ETag") else { return false }
            return opaque(etag) == opaque(storedTag)
        }
        if let lastModified = headers.first("Last-Modified") {
            return stored.headers.first("Last-Modified") == lastModified
        }
        return true
    }

    /// `stored` with the 304's fields in place of its own (every instance of each name replaced), except
    /// ``keptFields``, and the dates of this exchange.
    static func updated(_ stored: CachedResponse, with headers: HTTPHeaders, requestDate: Date, responseDate: Date) -> CachedResponse {
        var fields = stored.headers
        var replaced = Set<String>()
        for field in headers {
            let name = CacheControl.lowercased(field.name)
            if keptFields.contains(name) { continue }
            if replaced.insert(name).inserted { fields.remove(field.name) }
            fields.add(field)
        }
        // Made whole, so its head is read once (each setter would read it again).
        return CachedResponse(
            id: stored.id, url: stored.url, statusCode: stored.statusCode, headers: fields,
            varyingRequestHeaders: stored.varyingRequestHeaders, requestDate: requestDate, responseDate: responseDate,
            bodyLength: stored.bodyLength)
    }

    /// An entity tag without its weak prefix.
    private static func opaque(_ tag: String) -> Substring {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }
}
