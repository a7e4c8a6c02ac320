import Foundation

/// Chooses where a finished download goes: given the temporary file and the response, returns the
/// final location. The file is moved there atomically, replacing what was there.
public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: HTTPResponse) -> URL
