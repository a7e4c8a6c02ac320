import Foundation
import SluiceCore
import SluiceRequestSerialization

extension HTTPRequestSerializer {
    /// Builds a `multipart/form-data` request, as AFNetworking's
    /// `multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:error:` does.
    ///
    /// `parameters` become form fields first, flattened with this serializer's query-string options
    /// (`user[name]`, `tags[]`) but not percent-escaped: data values are sent raw, null as an empty
    /// field, other values as their text. Then `constructingBody` appends its parts. The request gets
    /// `Content-Type: multipart/form-data; boundary=…` and the exact `Content-Length`, computed
    /// without reading any part, and the body as a ``MultipartBodyStream``. With no parts and no
    /// parameters, the request is the plain one this serializer builds without parameters.
    ///
    /// - Parameters:
    ///   - method: The method. Default `POST`.
    ///   - urlString: An absolute URL, or one relative to `baseURL`.
    ///   - baseURL: The base for relative URLs. Default `nil`.
    ///   - parameters: Fields sent before the parts. Default `nil`.
    ///   - boundary: The boundary. Default: a random one.
    ///   - constructingBody: Appends the parts. Default: none.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/multipartMethodNotAllowed`` for `GET` and
    ///   `HEAD`, ``SluiceError/Code/invalidURL`` for a bad URL, what `constructingBody` throws when it
    ///   is a ``SluiceError`` (an append's error), or ``SluiceError/Code/multipartConstructionFailed``
    ///   wrapping any other error it throws. No request is made then.
    public func multipartFormRequest(
        method: HTTPMethod = .post, urlString: String, relativeTo baseURL: URL? = nil, parameters: Parameters? = nil,
        boundary: MultipartBoundary = .random(),
        constructingBody: (any MultipartFormData) throws -> Void = { _ in }
    ) throws(SluiceError) -> HTTPRequest {
        let name = method.rawValue.uppercased()
        guard name != "GET", name != "HEAD" else {
            throw SluiceError(.multipartMethodNotAllowed, "a \(name) request cannot carry a multipart body")
        }
        let request = try self.request(method: method, urlString: urlString, relativeTo: baseURL)
        let form = StreamingMultipartFormData(boundary: boundary)
        if let parameters {
            for leaf in QueryStringSerialization.leaves(from: parameters, options: queryStringOptions) {
                form.appendPart(formData: Self.formFieldBytes(leaf.value, options: queryStringOptions), name: leaf.field)
            }
        }
        do {
            try constructingBody(form)
        } catch {
            throw SluiceError.wrapping(error, as: .multipartConstructionFailed, "the body-building closure failed", request: request)
        }
        return form.finalize(request)
    }

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

    /// The bytes of a parameter leaf in a multipart form: data raw, null empty, others as text.
    static func formFieldBytes(_ value: Parameters, options: QueryStringSerialization.Options) -> Data {
        switch value {
        case .data(let data): data
        case .null: Data()
        default: Data((QueryStringSerialization.scalarText(value, options: options) ?? value.description).utf8)
        }
    }
}
