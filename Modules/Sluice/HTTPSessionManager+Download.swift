import Foundation
import SluiceCore
import SluiceResponseSerialization
import SluiceTransport

/// The download verb: a `GET` whose body is written to a file as it arrives.
extension HTTPSessionManager {
    /// `GET urlString` with `parameters` in the query (built by the request serializer, as ``get(_:parameters:headers:progress:)``),
    /// the body written to `destination` as it arrives, through the interceptor's adaptation and retries.
    ///
    /// The body goes to a temporary file first; it is moved to `destination` (replacing what is there,
    /// creating missing directories) only when the status is acceptable (200–299). A refused download
    /// leaves no file behind and `destination` as it was. A download that stopped part way (a lost
    /// connection, a timeout) keeps its partial file, and the error's ``SluiceError/resumeData`` resumes
    /// it (`SessionManager.download(resumingWith:to:)`); an attempt the interceptor retries removes the
    /// partial file of the attempt before it, so only the last failure's file is kept.
    ///
    /// ```swift
    /// let file = try await manager.download("files/report.pdf", to: reportURL) { progress in
    ///     print(progress.fractionReceived)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - urlString: The URL, relative to ``baseURL``.
    ///   - parameters: Query parameters. Default `nil`.
    ///   - headers: Headers replacing the serializer's defaults of the same name. Default none.
    ///   - destination: The file URL to write.
    ///   - progress: Called as bytes arrive, for each attempt, on an unspecified thread; on success its
    ///     last call, made before this returns, has the final counts with `totalBytesExpected` known.
    ///     Default `nil`.
    /// - Returns: A response whose ``HTTPSessionResponse/value`` is `destination` and whose
    ///   ``HTTPSessionResponse/data`` is empty.
    /// - Throws: ``SluiceError``: a request that cannot be built (nothing is sent); a transport failure;
    ///   ``SluiceError/Code/unacceptableStatusCode`` for a status outside 200–299 (carrying the response);
    ///   ``SluiceError/Code/downloadFailed`` when the file cannot be written or moved; or what the
    ///   interceptor gave up with. Its ``SluiceError/attempts`` says how many attempts were made.
    public func download(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        to destination: URL, progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<URL> {
        let request = try request(.get, urlString, parameters: parameters, headers: headers)
        // The partial file the last failed attempt kept: a retry starts over, so that file goes.
        let kept = Locked<ResumeData?>(nil)
        return try await retrying(request) { (request, attempt) throws(SluiceError) in
            kept.withLock { earlier in
                earlier?.removePartialFile()
                earlier = nil
            }
            // A refused response stays in its temporary file (moved onto itself), then is removed.
            let refusal = Locked<SluiceError?>(nil)
            let target = ResponseBodyDestination.file { temporaryURL, response in
                do throws(SluiceError) {
                    try HTTPResponseSerializer().validate(request: request, response: response, body: nil)
                    return destination
                } catch {
                    refusal.withLock { $0 = error }
                    return temporaryURL
                }
            }
            let received: TransportExchange
            do throws(SluiceError) {
                received = try await transport.exchange(request, receiving: target, events: TransportEvents(progress: progress))
            } catch {
                if let data = error.resumeData, let resume = try? ResumeData(resumeData: data) {
                    kept.withLock { $0 = resume }
                }
                throw error
            }
            let fileURL = received.body.fileURL ?? destination
            if let refused = refusal.withLock({ $0 }) {
                try? FileManager.default.removeItem(at: fileURL)
                throw refused
            }
            let metrics = received.metrics ?? TaskMetrics()
            log(received, bytes: Int(metrics.transactions.last?.bytesReceived ?? 0), metrics: metrics, attempt: attempt)
            return HTTPSessionResponse(
                value: fileURL, response: received.response, request: received.request, data: Data(),
                metrics: metrics, attempts: attempt)
        }
    }
}
