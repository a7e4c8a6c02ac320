import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Loads plugins from shared libraries: the example NDJSON plugin built by the package, and small C
/// libraries compiled here to check each refusal.
@Suite("Loadable plugins", .serialized)
struct LoadablePluginTests {
    static func compile(_ source: String, name: String) throws -> String { try CPluginBuilder.compile(source, name: name) }

    static func discard(_ path: String) { CPluginBuilder.discard(path) }

    static func table(abi: String, decode: String, name: String = "\"c-plugin\"") -> String {
        CPluginBuilder.prelude + """
        static int32_t upper(const uint8_t *in, size_t n, const char *type, uint8_t **out, size_t *len, char **err) {
            if (n > 0 && in[0] == '!') { *err = strdup("bang"); return 1; }
            char *json = malloc(n + 3); json[0] = '"';
            for (size_t i = 0; i < n; i++) json[i + 1] = (in[i] >= 'a' && in[i] <= 'z') ? in[i] - 32 : in[i];
            json[n + 1] = '"'; json[n + 2] = 0; *out = (uint8_t *)json; *len = n + 2; return 0;
        }
        static const char *types[] = {"text/x-shout"};
        static const table_t table = {\(abi), \(name), "1.0.0", types, 1, \(decode), NULL, free};
        const table_t *sluice_plugin_entry(void) { return &table; }
        """
    }

    @Test("the example plugin loads from its .so and decodes through the registry")
    func example() throws {
        let registry = SerializerRegistry()
        let summary = try registry.load(pluginAt: TestEnvironment.examplePluginPath())
        #expect(summary.name == "ndjson")
        #expect(summary.responseMediaTypes == ["application/x-ndjson", "application/jsonl"])
        let serializer = try #require(registry.responseSerializer(for: MediaType("application/x-ndjson; charset=utf-8")!))
        let value = try serializer.serialize(
            request: nil, response: HTTPResponse(statusCode: 200), body: Data("{\"a\":1}\n[2,3]\n\n\"x\"\n".utf8))
        #expect(value as? Parameters? == [["a": 1], [2, 3], "x"])
        let error = #expect(throws: SluiceError.self) {
            try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("{oops\n".utf8))
        }
        #expect(error?.code == .pluginFailed)
        #expect(error?.library?.library == "ndjson")
        #expect(error?.message.contains("line 1 is not JSON") == true)
    }

    @Test("the C example plugin, built against the CSluicePluginABI product's header, loads and decodes")
    func cExample() throws {
        let registry = SerializerRegistry()
        let summary = try registry.load(pluginAt: TestEnvironment.examplePluginPath("SluiceCLinesPlugin"))
        #expect(summary.name == "c-lines")
        #expect(summary.responseMediaTypes == ["text/x-lines"])
        let serializer = try #require(registry.responseSerializer(for: MediaType("text/x-lines")!))
        let value = try serializer.serialize(
            request: nil, response: HTTPResponse(statusCode: 200), body: Data("one\r\ntwo \"2\"\n\tthree\\".utf8))
        #expect(value as? Parameters? == ["one", "two \"2\"", "\tthree\\"])
        let empty = try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("x\n".utf8))
        #expect(empty as? Parameters? == ["x"])
    }

    @Test("the C example plugin refuses a line that is not UTF-8 itself, instead of returning text that is not JSON")
    func cExampleInvalidUTF8() throws {
        let registry = SerializerRegistry()
        try registry.load(pluginAt: TestEnvironment.examplePluginPath("SluiceCLinesPlugin"))
        let serializer = try #require(registry.responseSerializer(for: MediaType("text/x-lines")!))
        // Found by Tools/Fuzz (FuzzPluginABI): Latin-1 "café", a lone continuation byte, a surrogate, an overlong "/".
        for body: [UInt8] in [[0x63, 0x61, 0x66, 0xE9, 0x0A], [0x6F, 0x6B, 0x0A, 0x80], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
            let error = #expect(throws: SluiceError.self) {
                try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data(body))
            }
            #expect(error?.code == .pluginFailed)
            #expect(error?.library?.library == "c-lines", "\(error?.message ?? "")")
            #expect(error?.library?.message.hasSuffix("is not UTF-8") == true)
        }
        #expect(try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("ok\ncafé €\u{1F600}".utf8))
            as? Parameters? == ["ok", "café €\u{1F600}"])
    }

    @Test("a table claiming 2^63 media types or more is registry.invalidPlugin, not a crash")
    func hugeMediaTypeCount() throws {
        // Found by Tools/Fuzz (FuzzPluginABI): the count arrives as a negative Int and made an invalid range.
        let source = CPluginBuilder.prelude + """
            static int32_t echo(const uint8_t *in, size_t n, const char *type, uint8_t **out, size_t *len, char **err) { return 1; }
            static const char *types[] = {"text/x-huge"};
            static const table_t table = {1, "huge", "1.0.0", types, (size_t)1 << 63, echo, NULL, free};
            const table_t *sluice_plugin_entry(void) { return &table; }
            """
        let path = try Self.compile(source, name: "huge-count")
        defer { Self.discard(path) }
        let registry = SerializerRegistry()
        let error = #expect(throws: SluiceError.self) { try registry.load(pluginAt: path) }
        #expect(error?.code == .pluginInvalid)
        #expect(error?.message.contains("9223372036854775808 media types") == true, "\(error?.message ?? "")")
        #expect(registry.plugins.isEmpty)
    }

    @Test("a plugin written in C loads and decodes")
    func cPlugin() throws {
        let path = try Self.compile(Self.table(abi: "1", decode: "upper"), name: "shout")
        defer { Self.discard(path) }
        let registry = SerializerRegistry()
        try registry.load(pluginAt: path)
        let serializer = try #require(registry.responseSerializer(for: MediaType("text/x-shout")!))
        #expect(try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("hi".utf8)) as? Parameters? == "HI")
        let error = #expect(throws: SluiceError.self) {
            try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("!".utf8))
        }
        #expect(error?.library?.message == "bang")
    }

    @Test("a C plugin claiming 2^40 bytes of a 2-byte buffer is registry.pluginFailed, and the buffer is freed")
    func lyingLength() throws {
        let source = CPluginBuilder.prelude + """
            static int frees = 0;
            static void counting_free(void *buffer) { if (buffer) frees++; free(buffer); }
            static int32_t lie(const uint8_t *in, size_t n, const char *type, uint8_t **out, size_t *len, char **err) {
                uint8_t *json = malloc(2); memcpy(json, "{}", 2); *out = json; *len = (size_t)1 << 40; return 0;
            }
            static const char *types[] = {"text/x-liar"};
            static const table_t table = {1, "liar", "1.0.0", types, 1, lie, NULL, counting_free};
            const table_t *sluice_plugin_entry(void) { return &table; }
            int sluice_test_frees(void) { return frees; }
            """
        let path = try Self.compile(source, name: "liar")
        defer { Self.discard(path) }
        let registry = SerializerRegistry()
        try registry.load(pluginAt: path)
        let serializer = try #require(registry.responseSerializer(for: MediaType("text/x-liar")!))
        let error = #expect(throws: SluiceError.self) {
            try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("x".utf8))
        }
        #expect(error?.code == .pluginFailed)
        #expect(error?.message.contains("1099511627776") == true, "\(error?.message ?? "")")
        let handle = try #require(dlopen(path, RTLD_NOW | RTLD_NOLOAD))
        defer { dlclose(handle) }
        let frees = unsafeBitCast(try #require(dlsym(handle, "sluice_test_frees")), to: (@convention(c) () -> Int32).self)
        #expect(frees() == 1)

        // A lower limit chosen at load time applies to every answer.
        let strict = SerializerRegistry()
        try strict.load(pluginAt: TestEnvironment.examplePluginPath(), maximumOutputBytes: 8)
        let ndjson = try #require(strict.responseSerializer(for: MediaType("application/x-ndjson")!))
        #expect(try ndjson.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("1\n".utf8)) as? Parameters? == [1])
        let over = #expect(throws: SluiceError.self) {
            try ndjson.serialize(request: nil, response: HTTPResponse(statusCode: 200), body: Data("123456789\n".utf8))
        }
        #expect(over?.code == .pluginFailed)
        #expect(over?.message.contains("limit of 8 bytes") == true, "\(over?.message ?? "")")
    }

    @Test("refusals are clear and register nothing")
    func refusals() throws {
        let registry = SerializerRegistry()
        let missing = #expect(throws: SluiceError.self) { try registry.load(pluginAt: "/nonexistent/libnothing.so") }
        #expect(missing?.code == .pluginLoadFailed)

        let noEntry = try Self.compile("int unrelated(void) { return 1; }", name: "noentry")
        defer { Self.discard(noEntry) }
        #expect((#expect(throws: SluiceError.self) { try registry.load(pluginAt: noEntry) })?.code == .pluginMissingEntryPoint)

        let wrongABI = try Self.compile(Self.table(abi: "99", decode: "upper"), name: "wrongabi")
        defer { Self.discard(wrongABI) }
        let abiError = #expect(throws: SluiceError.self) { try registry.load(pluginAt: wrongABI) }
        #expect(abiError?.code == .pluginIncompatibleABI)
        #expect(abiError?.message.contains("99") == true)

        let nullDecode = try Self.compile(Self.table(abi: "1", decode: "NULL"), name: "nulldecode")
        defer { Self.discard(nullDecode) }
        #expect((#expect(throws: SluiceError.self) { try registry.load(pluginAt: nullDecode) })?.code == .pluginInvalid)

        let notALibrary = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-not-a-library-\(UUID()).so").path
        try Data("not ELF".utf8).write(to: URL(fileURLWithPath: notALibrary))
        defer { unlink(notALibrary) }
        #expect((#expect(throws: SluiceError.self) { try registry.load(pluginAt: notALibrary) })?.code == .pluginLoadFailed)

        #expect(registry.plugins.isEmpty)
    }

    @Test("loading a name twice is refused unless replacing")
    func duplicates() throws {
        let path = try TestEnvironment.examplePluginPath()
        let registry = SerializerRegistry()
        try registry.load(pluginAt: path)
        #expect((#expect(throws: SluiceError.self) { try registry.load(pluginAt: path) })?.code == .pluginDuplicate)
        try registry.load(pluginAt: path, replacing: true)
        #expect(registry.plugins.count == 1)
    }
}
