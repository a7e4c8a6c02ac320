import Foundation
import SluiceCore
import SluiceRequestSerialization

extension HTTPRequestSerializer {
    /// Writes the body stream of `request` (a multipart request, or any request with a stream body)
    /// to the file at `fileURL` and returns the request with that file as its body, for services that
    /// need a file upload. AFNetworking's `requestWithMultipartFormRequest:writingStreamContentsToFile:`.
    ///
    /// The bytes go to a temporary file beside `fileURL` that is renamed over it once complete; on
    /// any failure it is removed, so `fileURL` is either the whole body or untouched. The work runs
    /// off the calling task's executor.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/multipartWriteFailed`` when the request
    ///   has no stream body, `fileURL` is not a file URL, or the file cannot be written or moved;
    ///   what the stream throws (a part's error) otherwise.
    public func request(_ request: HTTPRequest, writingBodyTo fileURL: URL) async throws(SluiceError) -> HTTPRequest {
        guard case .stream(let stream) = request.body else {
            throw SluiceError(.multipartWriteFailed, "the request has no stream body to write", request: request)
        }
        guard fileURL.isFileURL else {
            throw SluiceError(.multipartWriteFailed, "\(fileURL.absoluteString) is not a file URL", request: request)
        }
        let result: Result<Void, SluiceError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Result { () throws(SluiceError) in
                    try MultipartFileWriter.write(stream, to: fileURL.path)
                })
            }
        }
        do {
            try result.get()
        } catch {
            var error = error
            error.request = error.request ?? request
            throw error
        }
        var written = request
        written.body = .file(path: fileURL.path)
        return written
    }
}
