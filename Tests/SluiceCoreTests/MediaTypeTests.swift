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

    @Test("a quote or backslash followed by a combining mark is escaped too (found by FuzzMediaType)")
    func quotingBeforeCombiningMarks() throws {
        // "\"\u{74A}" is one Character: a Character-wise replacement left the quote bare, which ended
        // the quoted string early, so the description did not parse (or parsed as other parameters).
        for value in ["a\"\u{74A}b", "a\\\u{301}b", "\"\u{301}; x=y", "\\\u{301}\""] {
            let type = try MediaType(type: "text", subtype: "plain", parameters: [(name: "p", value: value)])
            #expect(type.parameter("p") == value)
            let again = try MediaType(parsing: type.description)
            #expect(again == type, "\(type.description)")
            #expect(again.parameters.count == 1)
        }
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
}
