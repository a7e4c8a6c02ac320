import SluiceCore
import Testing

@Suite("MediaType")
struct MediaTypeTests {
    @Test("parses type, subtype, parameters and suffix")
    func parsing() throws {
        let type = try MediaType(parsing: "Application/Problem+JSON; Charset=\"UTF-8\"; q=0.5")
        #expect(type.type == "application")
        #expect(type.subtype == "problem+json")
        #expect(type.suffix == "json")
        #expect(type.charset == "UTF-8")
        #expect(type.parameter("Q") == "0.5")
        #expect(type.description == "application/problem+json; charset=UTF-8; q=0.5")
    }

    @Test("quotes parameter values that are not tokens")
    func quoting() throws {
        let type = try MediaType(parsing: #"multipart/form-data; boundary="a b\"c""#)
        #expect(type.parameter("boundary") == #"a b"c"#)
        #expect(type.description == #"multipart/form-data; boundary="a b\"c""#)
        #expect(try MediaType(parsing: type.description) == type)
    }

    @Test("refuses malformed input with a typed error", arguments: ["", "text", "text/", "/plain", "text/plain; x", "a/b c"])
    func refusesMalformed(input: String) {
        let error = #expect(throws: SluiceError.self) { try MediaType(parsing: input) }
        #expect(error?.code == .invalidMediaType)
        #expect(MediaType(input) == nil)
    }

    @Test("patterns")
    func patterns() throws {
        let problem = MediaType("application/problem+json")!
        #expect(MediaType.any.matches(problem))
        #expect(MediaType("*/*+json")!.matches(problem))
        #expect(MediaType("application/*")!.matches(problem))
        #expect(!MediaType.json.matches(problem))
        #expect(MediaType("*/*+json")!.isWildcard)
        #expect(!problem.isWildcard)
    }

    @Test("every media-type vector passes")
    func vectors() async throws {
        try await expectSuitePasses("core.media-types")
    }

    @Test("every header vector passes")
    func headerVectors() async throws {
        try await expectSuitePasses("core.headers")
    }
}
