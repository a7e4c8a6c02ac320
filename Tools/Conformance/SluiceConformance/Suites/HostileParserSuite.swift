import Foundation
import SluiceCore
import SluicePropertyList
import SluiceResponseSerialization
import SluiceXML

/// `security.parsers`: untrusted bytes through Sluice's parsers give their value or a typed error, never
/// a crash, a trap or a line on standard error: the hostile property lists of
/// `response/plist-hostile.json` (two of which once crashed the process inside Foundation), impossible
/// image sizes, an XML document libxml2's encoding layer complains about, and a loaded plugin that
/// claims more output than it returned.
struct HostileParserSuite: ConformanceSuite {
    let name = "security.parsers"
    let summary = "hostile property lists, image headers, XML encodings and plugin answers: typed errors, never a crash"
    let requirements: ConformanceRequirements = .vectors

    func run(in context: ConformanceContext) async throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(PropertyListVectors.self, from: "response/plist-hostile.json")
        var results = vectors.cases.map(Self.check)
        results += Self.imageCases()
        results.append(Self.xmlEncodingCase())
        results.append(Self.pluginLengthCase())
        return results
    }

    // MARK: Property lists

    private static let plistResponse = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-plist"])

    private static func check(_ vector: PropertyListVectors.Case) -> CaseResult {
        let id = "plist: \(vector.id)"
        guard let body = vector.body else {
            return CaseResult(id: id, passed: false, detail: "the vector has no body")
        }
        do throws(SluiceError) {
            let value = try PropertyListResponseSerializer().serialize(request: nil, response: plistResponse, body: body)
            guard vector.expect == "ok" else { return CaseResult(id: id, passed: false, detail: "expected \(vector.code ?? "an error"), got a value") }
            return .expect(id, value, equals: vector.value?.value)
        } catch {
            guard vector.expect == "error" else { return CaseResult(id: id, passed: false, detail: "expected a value, got \(error)") }
            guard error.code.rawValue == vector.code, error.message.contains(vector.reason ?? "") else {
                return CaseResult(id: id, passed: false, detail: "expected \(vector.code ?? "") (\(vector.reason ?? "")), got \(error.code): \(error.message)")
            }
            return CaseResult(id: id, passed: true)
        }
    }

    // MARK: Images

    /// Image headers claiming sizes their format cannot hold.
    private static func imageCases() -> [CaseResult] {
        func png(width: UInt32, height: UInt32) -> Data {
            var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
            for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
            return data + Data([8, 6, 0, 0, 0, 0, 0, 0, 0])
        }
        func bmp(width: UInt32, height: UInt32) -> Data {
            var data = Data("BM".utf8) + Data(count: 12)
            for value in [UInt32(40), width, height] { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
            return data + Data([1, 0, 24, 0]) + Data(count: 24)
        }
        let cases: [(String, Data, String, Bool)] = [
            ("PNG 2147483648 x 4294967295", png(width: 0x8000_0000, height: 0xFFFF_FFFF), "image/png", false),
            ("PNG 0 x 1", png(width: 0, height: 1), "image/png", false),
            ("PNG 2147483647 x 1 (the largest)", png(width: 0x7FFF_FFFF, height: 1), "image/png", true),
            ("BMP width FF FF FF FF", bmp(width: 0xFFFF_FFFF, height: 1), "image/bmp", false),
            ("BMP negative height (top-down) is valid", bmp(width: 2, height: UInt32(bitPattern: -3)), "image/bmp", true),
        ]
        return cases.map { label, body, type, valid in
            let id = "image: \(label)"
            do throws(SluiceError) {
                _ = try ImageResponseSerializer().serialize(
                    request: nil, response: HTTPResponse(statusCode: 200, headers: ["Content-Type": type]), body: body)
                return CaseResult(id: id, passed: valid, detail: valid ? nil : "accepted")
            } catch {
                return valid || error.code != .invalidImage
                    ? CaseResult(id: id, passed: false, detail: "got \(error.code): \(error.message)")
                    : CaseResult(id: id, passed: true)
            }
        }
    }

    // MARK: XML

    /// A document declaring UTF-7 with a byte no converter takes: libxml2's encoding layer reports it
    /// through the thread's error handlers, which Sluice points at the parse, so the message is the
    /// parse's diagnostic (and nothing is printed).
    private static func xmlEncodingCase() -> CaseResult {
        let id = "xml: an undecodable UTF-7 body is a typed error carrying libxml2's message"
        let body = Data(#"<?xml version="1.0" encoding="UTF-7"?><a>"#.utf8) + Data([0xFF]) + Data("</a>".utf8)
        do throws(SluiceError) {
            _ = try XMLTree(parsing: body)
            return CaseResult(id: id, passed: false, detail: "parsed")
        } catch {
            return error.code == .xmlMalformed && error.message.contains("conversion")
                ? CaseResult(id: id, passed: true)
                : CaseResult(id: id, passed: false, detail: "got \(error.code): \(error.message)")
        }
    }

    // MARK: Plugins

    /// A C plugin that returns a 2-byte buffer while claiming 2^40 bytes, built with the system's C
    /// compiler and loaded like any plugin: `registry.pluginFailed`, not a crash.
    private static func pluginLengthCase() -> CaseResult {
        let id = "plugin: a loaded plugin claiming 2^40 bytes of a 2-byte buffer is registry.pluginFailed"
        let source = CPluginBuilder.prelude + """
            static int32_t decode(const uint8_t *in, size_t n, const char *type, uint8_t **out, size_t *len, char **message) {
                uint8_t *json = malloc(2); memcpy(json, "{}", 2); *out = json; *len = (size_t)1 << 40; return 0;
            }
            static void release(void *p) { free(p); }
            static const char *types[] = { "application/x-liar" };
            static const table_t table = { 1, "liar", "1.0.0", types, 1, decode, NULL, release };
            const table_t *sluice_plugin_entry(void) { return &table; }
            """
        do {
            let library = try CPluginBuilder.compile(source, name: "liar")
            defer { CPluginBuilder.discard(library) }
            let registry = SerializerRegistry()
            try registry.load(pluginAt: library)
            guard let serializer = registry.responseSerializer(for: MediaType("application/x-liar")!) else {
                return CaseResult(id: id, passed: false, detail: "the plugin's media type does not resolve")
            }
            do throws(SluiceError) {
                _ = try serializer.serialize(
                    request: nil, response: HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/x-liar"]), body: Data("x".utf8))
                return CaseResult(id: id, passed: false, detail: "the claimed length was accepted")
            } catch {
                return .expect(id, error.code, equals: .pluginFailed)
            }
        } catch {
            return CaseResult(id: id, passed: false, detail: "\(error)")
        }
    }
}
