import Foundation
import SluiceCore

/// What the cache reads from a stored response's head, read once when the head is made or changed: its
/// `Cache-Control`, its freshness lifetime (RFC 9111 §4.2.1), its age when it arrived (§4.2.3's
/// corrected initial age) and the names its `Vary` lists. A hit then only adds the time it has been stored.
struct StoredResponseReading: Sendable {
    let control: CacheControl
    let lifetime: TimeInterval
    let isHeuristic: Bool
    let correctedInitialAge: TimeInterval
    let varyFieldNames: [String]

    init(statusCode: Int, headers: HTTPHeaders, requestDate: Date, responseDate: Date) {
        control = CacheControl(headers)
        (lifetime, isHeuristic) = Freshness.lifetime(
            statusCode: statusCode, headers: headers, control: control, responseDate: responseDate)
        correctedInitialAge = Freshness.correctedInitialAge(headers: headers, requestDate: requestDate, responseDate: responseDate)
        varyFieldNames = Self.varyFieldNames(of: headers)
    }

    /// The lowercased field names `headers`' `Vary` lists.
    static func varyFieldNames(of headers: HTTPHeaders) -> [String] {
        guard headers.contains("Vary") else { return [] }
        return headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { CacheControl.lowercased($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty }
    }
}
