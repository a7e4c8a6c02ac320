import Foundation
import SluiceCore
import SluiceMultipart
import SluiceTransport

/// The verbs with AFNetworking's success and failure closures, delivered on
/// ``HTTPSessionManager/completionQueue``. Each returns the running ``HTTPSessionTask``; a request
/// that cannot be built calls `failure` with no task and returns `nil`, as AFNetworking does.
extension HTTPSessionManager {
    /// Called with the task and the response serializer's value.
    public typealias Success = @Sendable (HTTPSessionTask, (any Sendable)?) -> Void
    /// Called with the task (`nil` when the request could not be built) and the error.
    public typealias Failure = @Sendable (HTTPSessionTask?, SluiceError) -> Void

    /// `GET`; `progress` reports the download.
    @discardableResult
    public func GET(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        progress: ProgressHandler? = nil, success: Success? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        start(.get, urlString, parameters, headers, progress, success, failure)
    }

    /// `HEAD`: `success` gets the task only.
    @discardableResult
    public func HEAD(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        success: (@Sendable (HTTPSessionTask) -> Void)? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        start(
            { () throws(SluiceError) in try self.request(.head, urlString, parameters: parameters, headers: headers) },
            progress: nil, serialize: Self.headValidation, success: { task, _ in success?(task) }, failure: failure)
    }

    /// `POST` with the parameters in the body; `progress` reports the upload and the download.
    @discardableResult
    public func POST(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        progress: ProgressHandler? = nil, success: Success? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        start(.post, urlString, parameters, headers, progress, success, failure)
    }

    /// A multipart `POST`; `progress` reports the upload.
    @discardableResult
    public func POST(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        constructingBody: (any MultipartFormData) throws -> Void, progress: ProgressHandler? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        let built = Result { () throws(SluiceError) in
            try multipartRequest(urlString, parameters: parameters, headers: headers, constructingBody: constructingBody)
        }
        return start({ () throws(SluiceError) in try built.get() }, progress: progress,
                     serialize: untypedSerialization(), success: success, failure: failure)
    }

    /// `PUT` with the parameters in the body.
    @discardableResult
    public func PUT(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        success: Success? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        start(.put, urlString, parameters, headers, nil, success, failure)
    }

    /// `PATCH` with the parameters in the body.
    @discardableResult
    public func PATCH(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        success: Success? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        start(.patch, urlString, parameters, headers, nil, success, failure)
    }

    /// `DELETE` with the parameters in the query.
    @discardableResult
    public func DELETE(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        success: Success? = nil, failure: Failure? = nil
    ) -> HTTPSessionTask? {
        start(.delete, urlString, parameters, headers, nil, success, failure)
    }

    // MARK: Helpers

    private func start(
        _ method: HTTPMethod, _ urlString: String, _ parameters: Parameters?, _ headers: HTTPHeaders,
        _ progress: ProgressHandler?, _ success: Success?, _ failure: Failure?
    ) -> HTTPSessionTask? {
        start(
            { () throws(SluiceError) in try self.request(method, urlString, parameters: parameters, headers: headers) },
            progress: progress, serialize: untypedSerialization(), success: success, failure: failure)
    }

    private func start<Output: Sendable>(
        _ build: () throws(SluiceError) -> HTTPRequest, progress: ProgressHandler?, serialize: @escaping Serialize<Output>,
        success: (@Sendable (HTTPSessionTask, Output) -> Void)?, failure: Failure?
    ) -> HTTPSessionTask? {
        let queue = completionQueue
        let request: HTTPRequest
        do throws(SluiceError) {
            request = try build()
        } catch {
            queue.async { failure?(nil, error) }
            return nil
        }
        let task = HTTPSessionTask(originalRequest: request)
        let runner = Task {
            do throws(SluiceError) {
                let result = try await self.send(request, progress: progress, task: task, serialize: serialize)
                task.finish(response: result.response, error: nil)
                queue.async { success?(task, result.value) }
            } catch {
                task.finish(response: nil, error: error)
                queue.async { failure?(task, error) }
            }
        }
        task.start(runner)
        return task
    }
}
