import Foundation
import HTTPTypes
import SluiceCore

/// Joins a server's base URL and an operation's path, as the other OpenAPI client transports do: the
/// base URL's path, then the request's path (escapes as written), then the request's query in place of
/// the base URL's.
enum RequestURL {
    /// The absolute URL string for `path` (the `:path` pseudo-header field: path and query) under `baseURL`.
    ///
    /// One of the two slashes is dropped where a base URL that ends in `/` meets a path that starts with one.
    ///
    /// - Throws: ``SluiceError/Code/invalidURL`` when the two make no URL.
    static func string(baseURL: URL, path: String?) throws(SluiceError) -> String {
        let path = path ?? ""
        guard var base = URLComponents(string: baseURL.absoluteString),
            let target = URLComponents(string: path)
        else {
            throw SluiceError(
                .invalidURL, "cannot join the path \(path.debugDescription) to the base URL \(baseURL.absoluteString)")
        }
        var basePath = base.percentEncodedPath
        if basePath.hasSuffix("/"), target.percentEncodedPath.hasPrefix("/") { basePath.removeLast() }
        base.percentEncodedPath = basePath + target.percentEncodedPath
        base.percentEncodedQuery = target.percentEncodedQuery
        guard let joined = base.url?.absoluteString else {
            throw SluiceError(
                .invalidURL, "the path \(path.debugDescription) and the base URL \(baseURL.absoluteString) make no URL")
        }
        return joined
    }
}
