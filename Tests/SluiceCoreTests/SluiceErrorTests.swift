import Foundation
import SluiceCore
import Testing

@Suite("SluiceError")
struct SluiceErrorTests {
    @Test("carries request, response, bounded body, library diagnostic and cause")
    func contents() throws {
        let request = HTTPRequest(url: "https://example.com/items", method: .post)
        let response = HTTPResponse(statusCode: 502, headers: ["Content-Type": "text/plain"])
        let body = Data(repeating: 0x41, count: SluiceError.bodyLimit + 10)
        let cause = SluiceError(.invalidHeaderValue, "inner")
        let error = SluiceError(
            "transport.cannotConnect", "could not connect", request: request, response: response, body: body,
            library: LibraryDiagnostic(library: "libcurl", code: 7, message: "Couldn't connect to server"),
            underlying: cause)
        #expect(error.code.rawValue == "transport.cannotConnect")
        #expect(error.code.area == "transport")
        #expect(error.request?.url.absoluteString == "https://example.com/items")
        #expect(error.response?.statusCode == 502)
        #expect(error.body?.count == SluiceError.bodyLimit)
        #expect(error.isBodyTruncated)
        #expect(error.library?.code == 7)
        #expect(error.underlyingSluiceError?.code == .invalidHeaderValue)
        #expect(error.description == "transport.cannotConnect: could not connect [libcurl 7: Couldn't connect to server] (caused by: header.invalidValue: inner)")
        #expect(error.debugDescription.contains("request: POST https://example.com/items"))
        #expect(error.debugDescription.contains("(truncated)"))
    }

    @Test("small bodies are kept whole")
    func smallBody() {
        var error = SluiceError(.bodyStreamFailed, "x", body: Data("abc".utf8))
        #expect(error.body == Data("abc".utf8))
        #expect(!error.isBodyTruncated)
        error.setBody(nil)
        #expect(error.body == nil)
    }

    @Test("codes are stable strings with stable numbers, bridged to NSError")
    func bridging() {
        let error = SluiceError(.invalidHeaderName, "bad name")
        let nsError = error as NSError
        #expect(nsError.domain == "Sluice")
        #expect(nsError.code == SluiceError.Code.invalidHeaderName.numericValue)
        #expect(SluiceError.Code.invalidHeaderName.numericValue == SluiceError.Code("header.invalidName").numericValue)
        #expect(nsError.localizedDescription == "bad name")
        #expect(nsError.userInfo["SluiceErrorCode"] as? String == "header.invalidName")
    }

    @Test("every code is listed in docs/errors.md")
    func documented() throws {
        let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let codes: [SluiceError.Code] = [
            .invalidHeaderName, .invalidHeaderValue, .invalidURL, .invalidMethod, .invalidTimeout, .invalidMediaType,
            .parametersEncodingFailed, .bodyFileNotFound, .bodyNotAFile, .bodyFileUnreadable, .bodyInvalidRange,
            .bodyLengthMismatch, .bodyStreamFailed, .bodyNotRewindable, .contentCodingOutputLimit,
            .contentCodingRatioLimit, .contentCodingCorrupt, .contentCodingTruncated, .contentCodingUnsupported,
            .pluginDuplicate, .pluginInvalid, .pluginNotFound, .pluginLoadFailed, .pluginMissingEntryPoint,
            .pluginIncompatibleABI, .pluginFailed, .malformedJSONLine, .malformedEventData, .eventStreamRefused,
        ]
        for code in codes {
            #expect(doc.contains("`\(code.rawValue)`"), "docs/errors.md does not list \(code)")
        }
    }
}

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
