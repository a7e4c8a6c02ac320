import Foundation
import SluiceCore
@testable import SluicePropertyList
import SluiceResponseSerialization
import SluiceTestSupport
import Testing

/// Sluice's own property-list parsers: hostile bodies are typed errors (never crashes), and what Foundation
/// writes reads back equal.
@Suite("Property-list parsers")
struct PropertyListParserTests {
    private static let plistType = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-plist"])

    // MARK: Vectors

    @Test("the hostile vectors (the two bodies that crashed Foundation among them) give their value or their typed error")
    func hostileVectors() throws {
        let vectors = try TestEnvironment.vectors.load(PropertyListVectors.self, from: "response/plist-hostile.json")
        #expect(vectors.cases.count >= 70)
        for vector in vectors.cases {
            let body = try #require(vector.body, "\(vector.id): no body")
            let result = Result { () throws(SluiceError) -> Parameters? in
                try PropertyListResponseSerializer().serialize(request: nil, response: Self.plistType, body: body)
            }
            switch (vector.expect, result) {
            case ("ok", .success(let value)):
                #expect(value == vector.value?.value, "\(vector.id)")
            case ("error", .failure(let error)):
                #expect(error.code.rawValue == vector.code, "\(vector.id)")
                #expect(error.message.contains(vector.reason ?? ""), "\(vector.id): \(error.message)")
                #expect(error.body == body, "\(vector.id)")
            default:
                Issue.record("\(vector.id): expected \(vector.expect), got \(result)")
            }
            // The Decodable path refuses the same bodies before Foundation reads them.
            let decoded = Result { () throws(SluiceError) -> Parameters in
                try PropertyListResponseSerializer.decodable(Parameters.self).serialize(request: nil, response: Self.plistType, body: body)
            }
            if vector.expect == "error", vector.code == "plist.invalidData" {
                guard case .failure(let error) = decoded else {
                    Issue.record("\(vector.id): the Decodable path accepted it")
                    continue
                }
                #expect(error.code == .decodingFailed, "\(vector.id)")
                #expect(Self.parserError(under: error)?.code == .propertyListInvalidData, "\(vector.id)")
            }
        }
    }

    @Test("the set that crashed PropertyListSerialization and the NaN date key that trapped are typed errors on both paths",
          arguments: [
              ("62706c6973743030c1011001080a000000000000010100000000000000020000000000000000000000000000000c", "sets are not supported"),
              ("62706c6973743030d1010233ffffffff400000001001080b140000000000000101000000000000000300000000000000000000000000000016",
               "is a date, not a string"),
          ])
    func crashRegressions(hex: String, reason: String) {
        let body = Self.bytes(hex: hex)
        let error = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer().serialize(request: nil, response: Self.plistType, body: body)
        }
        #expect(error?.code == .propertyListInvalidData)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        struct Anything: Decodable, Sendable {}
        let decodeError = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer.decodable(Anything.self).serialize(request: nil, response: Self.plistType, body: body)
        }
        #expect(decodeError.flatMap(Self.parserError(under:))?.code == .propertyListInvalidData)
    }

    // MARK: Binary structure

    @Test("binary trailers, offsets, references and sizes are checked", arguments: [
        // (objects, top, offset size, reference size, object count override, table offset override, reason)
        BinaryCase("offset size 0", [[0x09]], offsetSize: 0, reason: "offset size 0 is not 1 to 8"),
        BinaryCase("reference size 9", [[0x09]], referenceSize: 9, reason: "reference size 9 is not 1 to 8"),
        BinaryCase("top object past the objects", [[0x09]], top: 5, reason: "top object 5 is not one of the 1 objects"),
        BinaryCase("object count 2^63", [[0x09]], count: 1 << 63, reason: "does not lie between"),
        BinaryCase("table offset 2^64 - 1", [[0x09]], tableOffset: .max, reason: "does not lie between"),
        BinaryCase("table offset on the trailer", [[0x09]], tableOffset: 10, reason: "does not lie between"),
        BinaryCase("8-byte offsets past the end", [[0x09]], offsetSize: 8, offsets: [UInt64.max], reason: "outside the objects"),
        BinaryCase("a reference past the objects", [[0xA1, 0x09]], reason: "object reference 9 is not one of the 1 objects"),
        BinaryCase("an 8-byte reference of 2^64 - 1", [[0xA1] + [UInt8](repeating: 0xFF, count: 8)], referenceSize: 8,
                   reason: "is not one of the 1 objects"),
        BinaryCase("an array of 2^60 elements", [[0xAF, 0x13, 0x10, 0, 0, 0, 0, 0, 0, 0]], reason: "runs past the objects"),
        BinaryCase("a dictionary of 2^62 entries (the reference count overflows)",
                   [[0xDF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]], referenceSize: 4, reason: "runs past the objects"),
        BinaryCase("a UTF-16 string of 2^62 units", [[0x6F, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]], reason: "runs past the objects"),
        BinaryCase("data claiming more bytes than it has", [[0x4F, 0x11, 0x10, 0x00, 1, 2]], reason: "runs past the objects"),
        BinaryCase("a length marker with a 16-byte integer", [[0x5F, 0x14] + [UInt8](repeating: 0, count: 16)], reason: "not an integer of 1 to 8 bytes"),
        BinaryCase("an integer of 2^7 bytes", [[0x17, 0]], reason: "only 1, 2, 4, 8 and 16"),
        BinaryCase("a 16-byte integer with its high word 1", [[0x14, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)],
                   reason: "outside the 64-bit range"),
        BinaryCase("a 16-byte negative integer below Int64.min", [[0x14] + [UInt8](repeating: 0xFF, count: 8) + [0x7F] + [UInt8](repeating: 0, count: 7)],
                   reason: "outside the 64-bit range"),
        BinaryCase("a lone UTF-16 high surrogate at the end", [[0x62, 0x00, 0x41, 0xD8, 0x00]], reason: "unpaired UTF-16 high surrogate"),
        BinaryCase("a high surrogate followed by a letter", [[0x62, 0xD8, 0x00, 0x00, 0x41]], reason: "unpaired UTF-16 high surrogate"),
        BinaryCase("a data key", [[0xD1, 0x01, 0x02], [0x41, 0x00], [0x09]], reason: "is data, not a string"),
        BinaryCase("a NaN date key", [[0xD1, 0x01, 0x02], [0x33, 0xFF, 0xF8, 0, 0, 0, 0, 0, 0], [0x09]], reason: "is a date, not a string"),
        BinaryCase("an array key", [[0xD1, 0x01, 0x02], [0xA0], [0x09]], reason: "is an array, not a string"),
        BinaryCase("a set value in a dictionary", [[0xD1, 0x01, 0x02], [0x51, 0x6B], [0xC0]], reason: "sets are not supported"),
        BinaryCase("a UID in an array", [[0xA1, 0x01], [0x80, 0x01]], reason: "UID objects are not supported"),
        BinaryCase("a cycle through three arrays", [[0xA1, 0x01], [0xA1, 0x02], [0xA1, 0x00]], reason: "reference cycle"),
        BinaryCase("a cycle through a dictionary value", [[0xD1, 0x01, 0x00], [0x51, 0x6B]], reason: "reference cycle"),
        BinaryCase("a date marker 0x34", [[0x34, 0, 0, 0, 0, 0, 0, 0, 0]], reason: "unknown object marker 0x34"),
        BinaryCase("a truncated 8-byte real", [[0x23, 0, 0, 0]], reason: "runs past the end of the objects"),
    ])
    func binaryStructure(_ vector: BinaryCase) {
        let error = #expect(throws: SluiceError.self, "\(vector.name)") {
            try PropertyListParser.parse(vector.data)
        }
        #expect(error?.code == .propertyListInvalidData, "\(vector.name)")
        #expect(error?.message.contains(vector.reason) == true, "\(vector.name): \(error?.message ?? "")")
    }

    @Test("a binary or XML plist cut at every length, or with any one byte changed, reads or fails with a typed error")
    func binaryMutations() throws {
        let object: [String: Any] = [
            "name": "sluice 🌊", "count": 3, "big": UInt64.max, "small": Int64.min, "ratio": 0.25, "on": true,
            "when": Date(timeIntervalSinceReferenceDate: 86_400), "blob": Data([0, 1, 2, 255]),
            "list": [1, "two", ["nested": [1.5, false]]],
        ]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
            #expect(throws: Never.self) { try PropertyListParser.parse(data) }
            for length in 0..<data.count {
                Self.expectTypedOutcome(Data(data.prefix(length)))
            }
            var generator = SplitMix64(seed: 0x5EED)
            for _ in 0..<3_000 {
                var mutated = data
                let index = Int(generator.next() % UInt64(data.count))
                mutated[index] = UInt8(truncatingIfNeeded: generator.next())
                Self.expectTypedOutcome(mutated)
            }
        }
    }

    // MARK: Limits

    @Test("100,000 nested arrays are a typed error in XML, binary and OpenStep, not a stack overflow", arguments: ["xml", "binary", "openStep"])
    func deepNesting(format: String) {
        let body = Self.nestedArrays(100_000, format: format)
        let error = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer().serialize(request: nil, response: Self.plistType, body: body)
        }
        #expect(error?.code == .propertyListInvalidData)
        #expect(error?.message.contains("nest more than 512 deep") == true, "\(error?.message ?? "")")
    }

    @Test("512 nested arrays are read, 513 are refused", arguments: ["xml", "binary", "openStep"])
    func nestingLimit(format: String) throws {
        var value = try #require(try PropertyListResponseSerializer().serialize(
            request: nil, response: Self.plistType, body: Self.nestedArrays(512, format: format)))
        var depth = 0
        while case .array(let elements) = value, let first = elements.first {
            value = first
            depth += 1
        }
        #expect(depth == 512)
        let decoded = try PropertyListResponseSerializer.decodable(Parameters.self)
            .serialize(request: nil, response: Self.plistType, body: Self.nestedArrays(512, format: format))
        #expect(decoded.arrayValue?.count == 1)
        #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer().serialize(request: nil, response: Self.plistType, body: Self.nestedArrays(513, format: format))
        }
    }

    @Test("a shared binary object is held to the depth limit wherever it is reached")
    func sharedObjectDepth() {
        // The top is [301, 1]. Objects 1...600 are each an array holding the next object, 601 is `true`.
        // Read first from the top, object 301 heads a chain 300 arrays deep; reached again through the
        // chain from object 1 it sits 300 levels further down: 601 in all.
        var objects: [[UInt8]] = [[0xA2, 0x01, 0x2D, 0x00, 0x01]]
        for index in 1...600 { objects.append([0xA1, UInt8((index + 1) >> 8), UInt8((index + 1) & 0xFF)]) }
        objects.append([0x09])
        let error = #expect(throws: SluiceError.self) {
            try PropertyListParser.parse(Self.binaryPlist(objects, referenceSize: 2, offsetSize: 2))
        }
        #expect(error?.message.contains("more than 512 deep") == true, "\(error?.message ?? "")")
    }

    @Test("a binary array may refer to the same container twice (shared, not a cycle)")
    func sharedContainer() throws {
        let data = Self.binaryPlist([[0xA2, 0x01, 0x01], [0xA1, 0x02], [0x10, 0x07]])
        #expect(try PropertyListResponseSerializer().serialize(request: nil, response: Self.plistType, body: data) == [[7], [7]])
    }

    @Test("shared binary arrays doubling 30 times are refused by the value limit")
    func expansionLimit() {
        var objects = (0..<30).map { index -> [UInt8] in [0xA2, UInt8(index + 1), UInt8(index + 1)] }
        objects.append([0x09])
        let error = #expect(throws: SluiceError.self) { try PropertyListParser.parse(Self.binaryPlist(objects)) }
        #expect(error?.message.contains("more than 4096 values") == true, "\(error?.message ?? "")")
    }

    @Test("a 64 KiB string shared by 1,000 references is read; by 1,025 it passes the 64 MiB expansion limit")
    func sharedStringLimit() throws {
        func plist(references: Int) -> Data {
            let string: [UInt8] = [0x5F, 0x12, 0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
            let array: [UInt8] = [0xAF, 0x11, UInt8(references >> 8), UInt8(references & 0xFF)] + [UInt8](repeating: 1, count: references)
            return Self.binaryPlist([array, string], offsetSize: 2)
        }
        guard case .array(let elements) = try PropertyListParser.parse(plist(references: 1_000)) else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == 1_000 && elements.allSatisfy { $0 == elements[0] })
        let error = #expect(throws: SluiceError.self) { try PropertyListParser.parse(plist(references: 1_025)) }
        #expect(error?.message.contains("more than 67108864 bytes of strings and data") == true, "\(error?.message ?? "")")
    }

    @Test("overlapping binary data objects cannot make the parser copy the body quadratically")
    func overlappingObjects() {
        // 2,000 data objects, 6 bytes apart, each running to the end of a 40,000-byte tail.
        let count = 2_000, tail = 40_000
        var objects: [[UInt8]] = [[0xAF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)] + (1...count).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }]
        for index in 0..<count {
            let length = (count - index - 1) * 6 + tail
            objects.append([0x4F, 0x12, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        }
        objects.append([UInt8](repeating: 0, count: tail))
        // The last object, the tail, is filler that no reference names.
        let error = #expect(throws: SluiceError.self) { try PropertyListParser.parse(Self.binaryPlist(objects, referenceSize: 2, offsetSize: 4)) }
        #expect(error?.message.contains("bytes of strings and data") == true, "\(error?.message ?? "")")
    }

    // MARK: XML

    @Test("XML text: entities, character references, CDATA, comments and their edge cases", arguments: [
        ("<plist><string>&#x41;&#65;&#x10FFFF;&#xe9;</string></plist>", PropertyListValue.string("AA\u{10FFFF}é") as PropertyListValue?),
        ("<plist><string>a<!-- x --> b<?pi x?>c</string></plist>", .string("a bc")),
        ("<plist><string><![CDATA[]]></string></plist>", .string("")),
        ("<plist><string><![CDATA[&amp;]]]]><![CDATA[>]]></string></plist>", .string("&amp;]]>")),
        ("<plist><string>line\r\nend\u{1}</string></plist>", .string("line\r\nend\u{1}")),
        ("\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x>y\">\n<plist version='1.0'>\n<string>ok</string>\n</plist>\n<!-- end -->\n", .string("ok")),
        ("<?xml version=\"1.0\"?><string>no wrapper</string>", .string("no wrapper")),
        ("<plist><string>&#x;</string></plist>", nil),
        ("<plist><string>&#12a;</string></plist>", nil),
        ("<plist><string>&#xFFFFFFFFFFFF;</string></plist>", nil),
        ("<plist><string>&#00000000000000000000000000000000000065;</string></plist>", nil),
        ("<plist><string>&#xD83D;&#xDE00;</string></plist>", nil),
        ("<plist><string>&AMP;</string></plist>", nil),
        ("<plist><string>&#-1;</string></plist>", nil),
        ("<plist><string><b>bold</b></string></plist>", nil),
        ("<plist><string>\u{FF}</string></plist>", .string("\u{FF}")),
        ("<plist><string><![CDATA[open</string></plist>", nil),
        ("<plist><string>x<!-- open</string></plist>", nil),
        ("<plist><string>x</string></plist><plist/>", nil),
        ("<plist><string>x</string></plist>trailing", nil),
        ("<plist/>", nil),
        ("<plist></plist>", nil),
        ("<!DOCTYPE plist", nil),
        ("<plist><string attr=\"a<b\">x</string></plist>", nil),
        ("<plist><string attr=x>x</string></plist>", nil),
        ("<plist><string>x</string  ></plist >", .string("x")),
        ("<plist><true></true></plist>", .bool(true)),
        ("<plist><false> <!-- no --> </false></plist>", .bool(false)),
        ("<plist><true>yes</true></plist>", nil),
    ])
    func xmlText(xml: String, expected: PropertyListValue?) {
        let result = Result { () throws(SluiceError) -> PropertyListValue in try PropertyListParser.parse(Data(xml.utf8)) }
        switch (result, expected) {
        case (.success(let value), .some(let expected)): #expect(value == expected, "\(xml)")
        case (.failure(let error), .none): #expect(error.code == .propertyListInvalidData, "\(xml)")
        default: Issue.record("\(xml): \(result)")
        }
    }

    @Test("XML bytes that are not UTF-8 in a string are a typed error")
    func xmlInvalidUTF8() {
        let body = Data("<plist><string>".utf8) + Data([0xC3, 0x28, 0xFF]) + Data("</string></plist>".utf8)
        let error = #expect(throws: SluiceError.self) { try PropertyListParser.parse(body) }
        #expect(error?.message.contains("not UTF-8") == true)
    }

    @Test("XML scalars: integers, reals, dates and base64", arguments: [
        ("<integer>0</integer>", PropertyListValue.integer(0) as PropertyListValue?),
        ("<integer>+42</integer>", .integer(42)),
        ("<integer>-0x10</integer>", .integer(-16)),
        ("<integer>9223372036854775807</integer>", .integer(.max)),
        ("<integer>9223372036854775808</integer>", .unsignedInteger(1 << 63)),
        ("<integer>0xFFFFFFFFFFFFFFFF</integer>", .unsignedInteger(.max)),
        ("<integer>0x1FFFFFFFFFFFFFFFF</integer>", nil),
        ("<integer>12a</integer>", nil),
        ("<integer>-</integer>", nil),
        ("<integer/>", nil),
        ("<real>1e3</real>", .real(1_000)),
        ("<real>+infinity</real>", .real(.infinity)),
        ("<real>one</real>", nil),
        ("<real></real>", nil),
        ("<date>2001-01-01T00:00:00Z</date>", .date(0)),
        ("<date>1970-01-01T00:00:00Z</date>", .date(-978_307_200)),
        ("<date>2024-02-29T23:59:59Z</date>", .date(730_943_999)),
        ("<date>0000-01-01T00:00:00Z</date>", .date(-63_145_526_400)),
        ("<date>2024-02-29T24:00:00Z</date>", nil),
        ("<date>2024-1-01T00:00:00Z</date>", nil),
        ("<date>2024-01-01 00:00:00Z</date>", nil),
        ("<data>AAH/</data>", .data(Data([0, 1, 255]))),
        ("<data>\n\tAAE=\n</data>", .data(Data([0, 1]))),
        ("<data>AA</data>", .data(Data([0]))),
        ("<data>A</data>", nil),
        ("<data>AA=A</data>", nil),
        ("<data>AA===</data>", nil),
        ("<data>A*</data>", nil),
    ])
    func xmlScalars(xml: String, expected: PropertyListValue?) {
        let result = Result { () throws(SluiceError) -> PropertyListValue in
            try PropertyListParser.parse(Data(("<plist>" + xml + "</plist>").utf8))
        }
        switch (result, expected) {
        case (.success(let value), .some(let expected)): #expect(value == expected, "\(xml)")
        case (.failure(let error), .none): #expect(error.code == .propertyListInvalidData, "\(xml)")
        default: Issue.record("\(xml): \(result)")
        }
    }

    // MARK: OpenStep

    @Test("OpenStep strings, arrays, dictionaries, data and comments", arguments: [
        ("( a, \"b\", 'c', )", PropertyListValue.array([.string("a"), .string("b"), .string("c")]) as PropertyListValue?),
        ("( \"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\'\\q\\101\\0\" )", .array([.string("\u{7}\u{8}\u{C}\n\r\t\u{B}\\\"'qA\u{0}")])),
        ("( \"\\U00e9\\UD83D\\UDE00\\U41\" )", .array([.string("é😀A")])),
        ("( // line\n /* block */ path/to:file.txt-1+$_ )", .array([.string("path/to:file.txt-1+$_")])),
        ("{ k = <0aFF 00>; }", .dictionary([.init(key: "k", value: .data(Data([0x0A, 0xFF, 0x00])))])),
        ("{}", .dictionary([])),
        ("()", .array([])),
        ("( \"é\" )", .array([.string("é")])),
        ("( a b )", nil),
        ("( a, , b )", nil),
        ("{ a = 1 }", nil),
        ("{ a 1; }", nil),
        ("{ (a) = 1; }", nil),
        ("( <zz> )", nil),
        ("( \"\\U\" )", nil),
        ("( \"\\UDE00\" )", nil),
        ("( \"\\UD83D\\U0041\" )", nil),
        ("( \"open )", nil),
        ("( a ) b", nil),
        ("( # )", nil),
        ("(", nil),
    ])
    func openStep(text: String, expected: PropertyListValue?) {
        let result = Result { () throws(SluiceError) -> PropertyListValue in try PropertyListParser.parse(Data(text.utf8)) }
        switch (result, expected) {
        case (.success(let value), .some(let expected)): #expect(value == expected, "\(text)")
        case (.failure(let error), .none): #expect(error.code == .propertyListInvalidData, "\(text)")
        default: Issue.record("\(text): \(result)")
        }
    }

    @Test("OpenStep bodies that look like JSON are refused; arrays starting '(' are not checked for JSON")
    func openStepJSON() throws {
        #expect(throws: SluiceError.self) { try PropertyListParser.parse(Data("  {\"a\" : \"b\"}".utf8)) }
        #expect(try PropertyListParser.parse(Data("(\"a\", \"b\")".utf8)) == .array([.string("a"), .string("b")]))
        #expect(throws: SluiceError.self) { try PropertyListParser.parse(Data("(\"a\": 1)".utf8)) }
        #expect(try PropertyListParser.parse(Data("{ \"a\" = \"b\"; }".utf8)) == .dictionary([.init(key: "a", value: .string("b"))]))
    }

    // MARK: Round trips

    /// Values of every kind Foundation writes, in a dictionary.
    private static let roundTripValues: [String: PropertyListValue] = [
        "ascii": .string("sluice"),
        "empty": .string(""),
        "unicode": .string("héllo wörld — 日本語 🌊🏳️‍🌈 \u{10FFFF}"),
        "controls": .string("tab\tnew\nline\r\u{1}\u{7F}"),
        "markup": .string("<a href=\"x\">&amp;</a> ]]> '"),
        "zero": .integer(0),
        "small": .integer(200),
        "medium": .integer(70_000),
        "large": .integer(5_000_000_000),
        "negative": .integer(-1),
        "min": .integer(.min),
        "max": .integer(.max),
        "unsigned": .unsignedInteger(.max),
        "halfway": .unsignedInteger(1 << 63),
        "real": .real(0.1),
        "tiny": .real(.leastNonzeroMagnitude),
        "huge": .real(-1.7976931348623157e308),
        "wholeReal": .real(2),
        "true": .bool(true),
        "false": .bool(false),
        "epoch": .date(-978_307_200),
        "date": .date(700_000_000),
        "old": .date(-3_000_000_000),
        "data": .data(Data((0...255).map { UInt8($0) })),
        "emptyData": .data(Data()),
        "array": .array([.integer(1), .string("two"), .array([]), .dictionary([])]),
        "nested": .dictionary([
            .init(key: "deeper", value: .dictionary([.init(key: "list", value: .array([.bool(false), .real(-0.5)]))])),
            .init(key: "ключ", value: .string("значение")),
        ]),
        "long": .array((0..<300).map { .integer(Int64($0) * 1_000_003) }),
        "longString": .string(String(repeating: "ab", count: 5_000)),
        "longUnicode": .string(String(repeating: "é🌊", count: 100)),
    ]

    @Test("what Foundation writes, binary and XML, reads back equal", arguments: [
        PropertyListSerialization.PropertyListFormat.binary, .xml,
    ])
    func roundTrip(format: PropertyListSerialization.PropertyListFormat) throws {
        let value = PropertyListValue.dictionary(Self.roundTripValues.map { .init(key: $0.key, value: $0.value) })
        let data = try PropertyListSerialization.data(
            fromPropertyList: PropertyListConversion.foundationObject(from: value), format: format, options: 0)
        let read = try PropertyListParser.parse(data)
        #expect(Self.sorted(read) == Self.sorted(value))
        // Each value alone, at the top level.
        for (key, element) in Self.roundTripValues {
            let single = try PropertyListSerialization.data(
                fromPropertyList: PropertyListConversion.foundationObject(from: element), format: format, options: 0)
            #expect(Self.sorted(try PropertyListParser.parse(single)) == Self.sorted(element), "\(key)")
        }
    }

    @Test("Parameters from a binary plist: dates as ISO 8601, integers past Int.max as doubles, keys sorted")
    func parametersConversion() throws {
        let object: [String: Any] = [
            "b": UInt64.max, "a": Date(timeIntervalSince1970: 1_000), "c": Int64.min, "d": [Data([1])], "e": 1.5,
        ]
        let body = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let value = try #require(try PropertyListResponseSerializer().serialize(request: nil, response: Self.plistType, body: body))
        #expect(value == ["a": "1970-01-01T00:16:40Z", "b": .double(Double(UInt64.max)), "c": .integer(.min), "d": [.data(Data([1]))], "e": 1.5])
        #expect(value.dictionaryValue.map { Array($0.keys) } == ["a", "b", "c", "d", "e"])
    }

    @Test("a non-finite date never reaches Date formatting")
    func nonFiniteDate() {
        #expect(throws: SluiceError.self) { try PropertyListConversion.parameters(from: .date(.nan)) }
        #expect(throws: SluiceError.self) { try PropertyListConversion.parameters(from: .date(-.infinity)) }
    }

    // MARK: Decodable and writing

    @Test("the Decodable path decodes through a canonical binary copy: XML, binary and OpenStep bodies")
    func decodable() throws {
        struct Item: Decodable, Sendable, Equatable {
            let name: String
            let tags: [String]
        }
        let object: [String: Any] = ["name": "sluice", "tags": ["a", "b"]]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let body = try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
            #expect(try PropertyListResponseSerializer.decodable(Item.self).serialize(request: nil, response: Self.plistType, body: body)
                == Item(name: "sluice", tags: ["a", "b"]))
        }
        let openStep = Data("{ name = sluice; tags = (a, b); }".utf8)
        #expect(try PropertyListResponseSerializer.decodable(Item.self).serialize(request: nil, response: Self.plistType, body: openStep)
            == Item(name: "sluice", tags: ["a", "b"]))
        let error = #expect(throws: SluiceError.self) {
            try PropertyListResponseSerializer.decodable(Item.self).serialize(
                request: nil, response: Self.plistType, body: Data("{ name = 1; }".utf8))
        }
        #expect(error?.code == .decodingFailed)
        #expect(error.flatMap(Self.parserError(under:)) == nil)
    }

    @Test("asking to write OpenStep is a typed error (Foundation traps on it)")
    func writingOpenStep() {
        let error = #expect(throws: SluiceError.self) {
            try PropertyListRequestSerializer(format: .openStep).serialize(
                HTTPRequest(url: URL(string: "https://example.com")!, method: .post), with: ["a": 1])
        }
        #expect(error?.code == .propertyListInvalidValue)
    }
}

// MARK: - Helpers

/// A binary plist built from raw objects, with trailer fields that can be set to anything.
struct BinaryCase: Sendable, CustomTestStringConvertible {
    let name: String
    let data: Data
    let reason: String

    init(_ name: String, _ objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, referenceSize: UInt8 = 1,
         count: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [UInt64]? = nil, reason: String) {
        self.name = name
        self.reason = reason
        var bytes = Array("bplist00".utf8)
        var starts: [UInt64] = []
        for object in objects {
            starts.append(UInt64(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        let size = Int(min(max(offsetSize, 1), 8))
        for start in offsets ?? starts {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: start >> UInt64(shift))) }
        }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        for field in [count ?? UInt64(objects.count), top, tableOffset ?? table] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: field >> UInt64(shift))) }
        }
        data = Data(bytes)
    }

    var testDescription: String { name }
}

/// A small deterministic random number generator, so that mutation tests are repeatable.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

extension PropertyListParserTests {
    /// The parser's error under a Decodable serializer's ``SluiceError/Code/decodingFailed``.
    static func parserError(under error: SluiceError) -> SluiceError? {
        (error.underlying as? ForeignError)?.base as? SluiceError
    }

    /// The bytes of a hex string.
    static func bytes(hex: String) -> Data { PropertyListVectors.Case.bytes(hex: hex) }

    /// A binary plist of `objects` (the first is the top), with `referenceSize`-byte references.
    static func binaryPlist(_ objects: [[UInt8]], referenceSize: UInt8 = 1, offsetSize: UInt8 = 1) -> Data {
        BinaryCase("", objects, offsetSize: offsetSize, referenceSize: referenceSize, reason: "").data
    }

    /// `depth` arrays nested in one another, the innermost holding `true` (XML, OpenStep) or empty (binary).
    static func nestedArrays(_ depth: Int, format: String) -> Data {
        switch format {
        case "xml":
            return Data(("<plist>" + String(repeating: "<array>", count: depth) + "<true/>"
                + String(repeating: "</array>", count: depth) + "</plist>").utf8)
        case "openStep":
            return Data((String(repeating: "(", count: depth) + "x" + String(repeating: ")", count: depth)).utf8)
        default:
            // Object i (0 ..< depth) is an array holding object i + 1; the last object is `true`.
            var objects: [[UInt8]] = (0..<depth).map { index in
                let next = UInt32(index + 1)
                return [0xA1, UInt8(next >> 16 & 0xFF), UInt8(next >> 8 & 0xFF), UInt8(next & 0xFF)]
            }
            objects.append([0x09])
            return binaryPlist(objects, referenceSize: 3, offsetSize: 4)
        }
    }

    /// `value` with every dictionary's entries sorted by key (Foundation writes them in its own order).
    static func sorted(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements): .array(elements.map(sorted))
        case .dictionary(let entries):
            .dictionary(entries.map { .init(key: $0.key, value: sorted($0.value)) }.sorted { $0.key < $1.key })
        default: value
        }
    }

    /// Parses `body` through the serializer and the Decodable path: any outcome but a crash or an untyped
    /// error is fine.
    static func expectTypedOutcome(_ body: Data) {
        do {
            _ = try PropertyListResponseSerializer().serialize(request: nil, response: plistType, body: body)
        } catch {
            #expect(error.code == .propertyListInvalidData)
        }
        do {
            _ = try PropertyListResponseSerializer.decodable(Parameters.self).serialize(request: nil, response: plistType, body: body)
        } catch {
            #expect(error.code == .decodingFailed || error.code == .emptyResponse)
        }
    }
}
