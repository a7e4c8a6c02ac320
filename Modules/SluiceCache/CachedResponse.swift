import Foundation
import SluiceCore

/// A stored response's head and what the cache needs to judge it: when it was requested and received,
/// the request header values it varies on, its body's length. Its body is the store's, under ``id``.
public struct CachedResponse: Sendable, Hashable, Identifiable {
    /// The stored body's name in its store; a new one for every stored response (a revalidation keeps it).
    public let id: UUID
    /// The URL of the request it answered (the cache's primary key, see ``HTTPCache/key(for:)``).
    public var url: URL
    /// The status code.
    public var statusCode: Int
    /// The header fields as they will be served: as received, with those a 304 updated, except that
    /// `Content-Encoding` and `Content-Length` describe the stored body (see ``HTTPCache``).
    public var headers: HTTPHeaders
    /// The values the request had for each field the response's `Vary` names (lowercased names; a field
    /// the request lacked is absent).
    public var varyingRequestHeaders: [String: String]
    /// When the request that fetched (or last revalidated) it was sent.
    public var requestDate: Date
    /// When its head was received.
    public var responseDate: Date
    /// The stored body's length in bytes.
    public var bodyLength: Int64

    /// A stored response.
    ///
    /// - Parameters:
    ///   - id: The body's name in the store. Default a new one.
    ///   - url: The request's URL.
    ///   - statusCode: The status code.
    ///   - headers: The header fields.
    ///   - varyingRequestHeaders: The request's values of the fields `Vary` names. Default none.
    ///   - requestDate: When the request was sent.
    ///   - responseDate: When the head arrived.
    ///   - bodyLength: The body's length. Default 0.
    public init(
        id: UUID = UUID(), url: URL, statusCode: Int, headers: HTTPHeaders, varyingRequestHeaders: [String: String] = [:],
        requestDate: Date, responseDate: Date, bodyLength: Int64 = 0
    ) {
        self.id = id
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.varyingRequestHeaders = varyingRequestHeaders
        self.requestDate = requestDate
        self.responseDate = responseDate
        self.bodyLength = bodyLength
    }

    /// The field names (lowercased) of the response's `Vary`, `["*"]` for a response that varies on
    /// everything.
    public var varyFieldNames: [String] {
        headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { CacheControl.lowercased($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty }
    }

    /// What tells this response's variant apart from the others of its URL: its `Vary` request values,
    /// in a stable order. Storing a response replaces the stored one with the same variant key.
    public var variantKey: String {
        varyingRequestHeaders.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }

    /// Whether this response may answer a request with `headers` (RFC 9111 §4.1): every field its `Vary`
    /// names has the same value in both requests (absent in both counts as the same); never for `Vary: *`.
    public func matches(requestHeaders headers: HTTPHeaders) -> Bool {
        if varyingRequestHeaders.isEmpty, !self.headers.contains("Vary") { return true }
        for name in varyFieldNames {
            if name == "*" { return false }
            if Self.normalized(headers.value(for: name)) != varyingRequestHeaders[name] { return false }
        }
        return true
    }

    /// The values `request`'s headers have for the fields `Vary` names in `response`'s headers.
    static func varyingValues(of requestHeaders: HTTPHeaders, for responseHeaders: HTTPHeaders) -> [String: String] {
        let probe = CachedResponse(
            id: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, url: URL(fileURLWithPath: "/"), statusCode: 200,
            headers: responseHeaders, requestDate: .distantPast, responseDate: .distantPast)
        var values: [String: String] = [:]
        for name in probe.varyFieldNames where name != "*" {
            if let value = normalized(requestHeaders.value(for: name)) { values[name] = value }
        }
        return values
    }

    /// A field value as compared for `Vary`: combined, with the spaces around its list items removed
    /// (RFC 9111 §4.1 allows normalizing whitespace).
    static func normalized(_ value: String?) -> String? {
        guard let value else { return nil }
        return value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
    }
}
