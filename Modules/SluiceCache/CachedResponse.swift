import Foundation
import SluiceCore

/// A stored response's head and what the cache needs to judge it: when it was requested and received,
/// the request header values it varies on, its body's length. Its body is the store's, under ``id``.
public struct CachedResponse: Sendable, Hashable, Identifiable {
    /// The fields and what the cache reads from them, in one shared box: a hit copies a stored response
    /// several times, and a copy is then one reference, not one per field.
    private final class Storage: @unchecked Sendable {
        // Changed only through a uniquely referenced storage (`unique()`), so never while shared; the
        // reading is made again after every change.
        var url: URL
        var statusCode: Int
        var headers: HTTPHeaders
        var varyingRequestHeaders: [String: String]
        var requestDate: Date
        var responseDate: Date
        var bodyLength: Int64
        private(set) var reading: StoredResponseReading

        init(
            url: URL, statusCode: Int, headers: HTTPHeaders, varyingRequestHeaders: [String: String], requestDate: Date,
            responseDate: Date, bodyLength: Int64
        ) {
            self.url = url
            self.statusCode = statusCode
            self.headers = headers
            self.varyingRequestHeaders = varyingRequestHeaders
            self.requestDate = requestDate
            self.responseDate = responseDate
            self.bodyLength = bodyLength
            reading = StoredResponseReading(
                statusCode: statusCode, headers: headers, requestDate: requestDate, responseDate: responseDate)
        }

        func copy() -> Storage {
            Storage(
                url: url, statusCode: statusCode, headers: headers, varyingRequestHeaders: varyingRequestHeaders,
                requestDate: requestDate, responseDate: responseDate, bodyLength: bodyLength)
        }

        func read() {
            reading = StoredResponseReading(
                statusCode: statusCode, headers: headers, requestDate: requestDate, responseDate: responseDate)
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The stored body's name in its store; a new one for every stored response (a revalidation keeps it).
    public let id: UUID
    /// The URL of the request it answered (the cache's primary key, see ``HTTPCache/key(for:)``).
    public var url: URL {
        get { storage.url }
        set { unique().url = newValue }
    }
    /// The status code.
    public var statusCode: Int {
        get { storage.statusCode }
        set {
            unique().statusCode = newValue
            storage.read()
        }
    }
    /// The header fields as they will be served: as received, with those a 304 updated, except that
    /// `Content-Encoding` and `Content-Length` describe the stored body (see ``HTTPCache``).
    public var headers: HTTPHeaders {
        get { storage.headers }
        set {
            unique().headers = newValue
            storage.read()
        }
    }
    /// The values the request had for each field the response's `Vary` names (lowercased names; a field
    /// the request lacked is absent).
    public var varyingRequestHeaders: [String: String] {
        get { storage.varyingRequestHeaders }
        set { unique().varyingRequestHeaders = newValue }
    }
    /// When the request that fetched (or last revalidated) it was sent.
    public var requestDate: Date {
        get { storage.requestDate }
        set {
            unique().requestDate = newValue
            storage.read()
        }
    }
    /// When its head was received.
    public var responseDate: Date {
        get { storage.responseDate }
        set {
            unique().responseDate = newValue
            storage.read()
        }
    }
    /// The stored body's length in bytes.
    public var bodyLength: Int64 {
        get { storage.bodyLength }
        set { unique().bodyLength = newValue }
    }

    /// What the cache reads from the head (its `Cache-Control`, freshness lifetime, age when received,
    /// `Vary` names), read once when the head is made or changed.
    var reading: StoredResponseReading { storage.reading }

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
        storage = Storage(
            url: url, statusCode: statusCode, headers: headers, varyingRequestHeaders: varyingRequestHeaders,
            requestDate: requestDate, responseDate: responseDate, bodyLength: bodyLength)
    }

    /// Equal when every field is.
    public static func == (lhs: CachedResponse, rhs: CachedResponse) -> Bool {
        if lhs.id != rhs.id { return false }
        if lhs.storage === rhs.storage { return true }
        return lhs.url == rhs.url && lhs.statusCode == rhs.statusCode && lhs.headers == rhs.headers
            && lhs.varyingRequestHeaders == rhs.varyingRequestHeaders && lhs.requestDate == rhs.requestDate
            && lhs.responseDate == rhs.responseDate && lhs.bodyLength == rhs.bodyLength
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(url)
        hasher.combine(statusCode)
        hasher.combine(headers)
        hasher.combine(varyingRequestHeaders)
        hasher.combine(requestDate)
        hasher.combine(responseDate)
        hasher.combine(bodyLength)
    }

    /// The field names (lowercased) of the response's `Vary`, `["*"]` for a response that varies on
    /// everything.
    public var varyFieldNames: [String] { reading.varyFieldNames }

    /// What tells this response's variant apart from the others of its URL: its `Vary` request values,
    /// in a stable order. Storing a response replaces the stored one with the same variant key.
    public var variantKey: String {
        varyingRequestHeaders.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }

    /// Whether this response may answer a request with `headers` (RFC 9111 §4.1): every field its `Vary`
    /// names has the same value in both requests (absent in both counts as the same); never for `Vary: *`.
    public func matches(requestHeaders headers: HTTPHeaders) -> Bool {
        let names = reading.varyFieldNames
        if names.isEmpty, varyingRequestHeaders.isEmpty { return true }
        for name in names {
            if name == "*" { return false }
            if Self.normalized(headers.value(for: name)) != varyingRequestHeaders[name] { return false }
        }
        return true
    }

    /// The values `request`'s headers have for the fields `Vary` names in `response`'s headers.
    static func varyingValues(of requestHeaders: HTTPHeaders, for responseHeaders: HTTPHeaders) -> [String: String] {
        var values: [String: String] = [:]
        for name in StoredResponseReading.varyFieldNames(of: responseHeaders) where name != "*" {
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
