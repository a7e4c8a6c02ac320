// A user's target that depends on the SluiceMultipart and SluiceRequestSerialization products only
// (Package.swift gives this target no other dependency). It must not import SluiceCore, which such a user
// never declared, nor OrderedCollections: what those modules' public API uses is usable through them.
// That this file compiles is most of the test.
import Foundation
import SluiceMultipart
import SluiceRequestSerialization
import Testing

@Suite("A target that depends on two modules only")
struct SingleModuleUserTests {
    @Test("core types (HTTPRequest, Parameters, HTTPHeaders, SluiceError, ...) are in scope")
    func coreTypesInScope() throws {
        let serializer = HTTPRequestSerializer()
        let fields: [String: Parameters] = ["album": "Holidays", "year": 2024]
        let request: HTTPRequest = try serializer.multipartFormRequest(
            urlString: "https://example.com/upload", parameters: .dictionary(fields),
            constructingBody: { form in form.appendPart(formData: Data("x".utf8), name: "note") })
        let method: HTTPMethod = request.method
        let headers: HTTPHeaders = request.headers
        #expect(method == .post)
        #expect(headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        do {
            _ = try serializer.multipartFormRequest(method: .get, urlString: "https://example.com/upload")
            Issue.record("a GET multipart request was built")
        } catch {
            let refusal: SluiceError = error
            #expect(refusal.code == .multipartMethodNotAllowed)
        }
    }

    @Test("Parameters.dictionary takes an ordinary [String: Parameters], keys sorted")
    func ordinaryDictionary() throws {
        let inner: [String: Parameters] = ["b": 2, "a": 1]
        let outer: [String: Parameters] = ["page": .dictionary(inner), "q": "sluice"]
        let parameters = Parameters.dictionary(outer)
        #expect(parameters == ["q": "sluice", "page": ["a": 1, "b": 2]])
        #expect(parameters["page"]?["a"] == 1)
        let request = try HTTPRequestSerializer().request(
            method: .get, urlString: "https://example.com/search", parameters: parameters)
        #expect(request.url.query == "page%5Ba%5D=1&page%5Bb%5D=2&q=sluice")
    }
}
