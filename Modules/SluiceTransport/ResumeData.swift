import Foundation
import SluiceCore

/// What a cancelled download needs to continue where it stopped: the request, the partial file and
/// the response's validator. Pass it to ``SessionManager/download(resumingWith:to:progress:)``.
public struct ResumeData: Sendable, Codable, Hashable {
    /// The request that was downloading.
    public let url: URL
    /// The headers it was sent with.
    public let headers: [String: String]
    /// The partial file.
    public let partialFilePath: String
    /// `ETag` or `Last-Modified` of the response, sent as `If-Range` so a changed resource restarts.
    public let validator: String?

    /// Creates resume data; normally ``SessionManager/cancel(_:producingResumeData:)`` makes it.
    public init(url: URL, headers: [String: String], partialFilePath: String, validator: String?) {
        self.url = url
        self.headers = headers
        self.partialFilePath = partialFilePath
        self.validator = validator
    }
}
