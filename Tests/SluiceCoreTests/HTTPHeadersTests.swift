import SluiceCore
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test("keeps insertion order and repeated fields")
    func orderAndRepeats() throws {
        var headers = HTTPHeaders()
        try headers.add(name: "Set-Cookie", value: "a=1")
        try headers.add(name: "Accept", value: "text/html")
        try headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.map(\.name) == ["Set-Cookie", "Accept", "set-cookie"])
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["set-cookie"] == "a=1, b=2")
        #expect(headers.first("Set-Cookie") == "a=1")
        #expect(headers.count == 3)
    }

    @Test("looks names up ignoring case")
    func caseInsensitiveLookup() throws {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.contains("Content-type"))
        #expect(headers["Content-Length"] == nil)
    }

    @Test("set replaces every field of the name in place of the first; nil removes")
    func setReplacesAndRemoves() throws {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3", "C": "4"]
        try headers.set(name: "a", value: "x")
        #expect(headers.wireFormat == "a: x\r\nB: 2\r\nC: 4\r\n")
        try headers.set(name: "D", value: "5")
        #expect(headers.map(\.name) == ["a", "B", "C", "D"])
        try headers.set(name: "b", value: nil)
        #expect(!headers.contains("B"))
        headers.remove("c")
        #expect(headers.map(\.name) == ["a", "D"])
    }

    @Test("refuses CR, LF and NUL in values and leaves the list unchanged", arguments: [
        "value\r\nInjected: yes", "value\nInjected: yes", "value\rmore", "nul\u{0}byte", "bell\u{7}",
    ])
    func refusesInjectionInValues(value: String) throws {
        var headers: HTTPHeaders = ["Accept": "text/plain"]
        let before = headers
        let error = #expect(throws: SluiceError.self) { try headers.add(name: "X-Token", value: value) }
        #expect(error?.code == .invalidHeaderValue)
        #expect(error?.message.contains("X-Token") == true)
        #expect(headers == before)
        #expect(throws: SluiceError.self) { try headers.set(name: "Accept", value: value) }
        #expect(headers == before)
    }

    @Test("refuses names that are not tokens", arguments: ["", "X Y", "X:Y", "X\r\nY", "Caf\u{E9}", "X\u{0}"])
    func refusesBadNames(name: String) {
        var headers = HTTPHeaders()
        let error = #expect(throws: SluiceError.self) { try headers.add(name: name, value: "1") }
        #expect(error?.code == .invalidHeaderName)
        #expect(headers.isEmpty)
    }

    @Test("trims the whitespace bytes around a value even where a grapheme cluster joins them to a character",
          arguments: [("a\u{6DD} ", "a\u{6DD}"), (" \u{301}x", "\u{301}x"), ("\t\u{600}\t", "\u{600}"), ("x \u{301} ", "x \u{301}")])
    func trimsBytesNotCharacters(value: String, trimmed: String) throws {
        // Found by Tools/Fuzz (FuzzMediaType): U+06DD joins the space after it into one Character, and a
        // trim by Character indices kept that space.
        let field = try HTTPHeader(name: "X-Mark", value: value)
        #expect(field.value == trimmed)
        #expect(field.value.utf8.first != 0x20 && field.value.utf8.last != 0x20)
    }

    @Test("trims surrounding whitespace of values, keeps inner tabs and UTF-8")
    func trimsValues() throws {
        var headers = HTTPHeaders()
        try headers.add(name: "X", value: "  a\tb  ")
        try headers.add(name: "Y", value: "caf\u{E9}")
        #expect(headers["x"] == "a\tb")
        #expect(headers["y"] == "caf\u{E9}")
    }

    @Test("canonical output")
    func canonicalOutput() throws {
        let headers: HTTPHeaders = ["content-type": "text/plain", "x-REQUEST-id": "7"]
        #expect(headers.canonicalized().wireFormat == "Content-Type: text/plain\r\nX-Request-Id: 7\r\n")
        #expect(headers.dictionary == ["Content-Type": "text/plain", "X-Request-Id": "7"])
    }

    @Test("merging lets the other list's names win")
    func merging() throws {
        let defaults: HTTPHeaders = ["Accept": "*/*", "User-Agent": "Sluice", "Accept-Language": "en"]
        let perRequest: HTTPHeaders = ["accept": "application/json", "X-Trace": "1", "X-Trace": "2"]
        let merged = defaults.merging(perRequest)
        #expect(merged.wireFormat == "accept: application/json\r\nUser-Agent: Sluice\r\nAccept-Language: en\r\nX-Trace: 1\r\nX-Trace: 2\r\n")
    }

    @Test("equality ignores name case but not order or values")
    func equality() {
        let a: HTTPHeaders = ["A": "1", "B": "2"]
        #expect(a == ["a": "1", "b": "2"])
        #expect(a != ["B": "2", "A": "1"])
        #expect(a != ["A": "1", "B": "3"])
        #expect(Set([a, ["a": "1", "b": "2"]]).count == 1)
    }

    @Test("validating a dictionary adds names in sorted order")
    func validatingDictionary() throws {
        let headers = try HTTPHeaders(validating: ["b": "2", "a": "1"])
        #expect(headers.map(\.name) == ["a", "b"])
        #expect(throws: SluiceError.self) { try HTTPHeaders(validating: ["ok": "1", "bad": "x\ny"]) }
    }
}
