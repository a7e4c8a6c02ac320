import Foundation
import SluiceCore
import SluiceRequestSerialization

extension RequestSerializer {
    /// Builds a `multipart/form-data` request, as AFNetworking's
    /// `multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:error:` does.
    ///
    /// The request starts as this serializer makes it (``RequestSerializer/makeRequest(method:urlString:relativeTo:)``,
    /// then ``RequestSerializer/serialize(_:with:)`` without parameters, for its headers). `parameters`
    /// become form fields first, as ``RequestSerializer/formFields(from:)`` names them (by default, and
    /// for ``HTTPRequestSerializer`` with its query-string options: `user[name]`, `tags[]`, not
    /// percent-escaped; data values raw, null as an empty field, other values as their text). Then
    /// `constructingBody` appends its parts. The request gets
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
        let request = try serialize(makeRequest(method: method, urlString: urlString, relativeTo: baseURL), with: nil)
        let form = StreamingMultipartFormData(boundary: boundary)
        if let parameters {
            for field in formFields(from: parameters) ?? QueryStringSerialization.formFields(from: parameters) {
                form.appendPart(formData: field.value, name: field.name)
            }
        }
        do {
            try constructingBody(form)
        } catch {
            throw SluiceError.wrapping(error, as: .multipartConstructionFailed, "the body-building closure failed", request: request)
        }
        return form.finalize(request)
    }
}
