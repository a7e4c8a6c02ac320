import Foundation
import SluiceCore

/// A completed data or upload task: the body, the response head, and the metrics.
public struct DataResponse: Sendable {
    /// The body as received (content codings removed).
    public let data: Data
    /// The final response head, after redirects.
    public let response: HTTPResponse
    /// The request that produced ``response`` (after redirects).
    public let request: HTTPRequest
    /// Timings and sizes.
    public let metrics: TaskMetrics
}

/// A completed download: where the file is now, the response head, and the metrics.
public struct DownloadResponse: Sendable {
    /// The file's final location, chosen by the destination closure.
    public let fileURL: URL
    /// The final response head.
    public let response: HTTPResponse
    /// The request that produced ``response``.
    public let request: HTTPRequest
    /// Timings and sizes.
    public let metrics: TaskMetrics
    /// How a download resumed from ``ResumeData`` began: continued or started over, and why. `nil`
    /// for a download that was not resumed, and for a resume answered with an error status (the
    /// partial file is then left as it was, and the error page delivered in a file of its own).
    public var resumption: DownloadResumption? = nil
}
