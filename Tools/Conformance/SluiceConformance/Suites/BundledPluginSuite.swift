import Foundation
import Sluice
import SluiceCore
import SluicePropertyList
import SluiceXML

/// `plugins.bundled`: the contract of each plugin in `SerializerRegistry.bundled()`, checked through the
/// registry: it is registered, the media types and coding names it declares resolve to it, a valid body
/// decodes, bodies it cannot read are typed errors (never a crash), an answer without content gives no
/// value, codings round-trip (the full coding contract is `core.content-codings`), and XML's safety cases
/// are refused.
struct BundledPluginSuite: ConformanceSuite {
    let name = "plugins.bundled"
    let summary = "the bundled gzip, brotli, Zstandard, XML and property-list plugins meet their contracts through the registry"

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let registry = SerializerRegistry.bundled()
        var results: [CaseResult] = []
        let names = registry.plugins.map(\.name)
        for plugin in ["gzip", "xml", "plist"] {
            results.append(.expect("\(plugin): registered", names.contains(plugin), equals: true))
        }
        results += resolution(registry)
        results += codings(registry)
        results += xml(registry)
        results += propertyLists(registry)
        return results
    }

    // MARK: Media types and codings

    private func resolution(_ registry: SerializerRegistry) -> [CaseResult] {
        let expected: [(String, String)] = [
            ("application/xml", "xml"), ("text/xml", "xml"), ("application/atom+xml", "xml"), ("image/svg+xml", "xml"),
            ("application/rss+xml; charset=utf-8", "xml"), ("application/x-plist", "plist"),
            ("application/json", "sluice.builtin"), ("text/plain", "sluice.builtin"),
        ]
        return expected.map { type, plugin in
            .expect("\(type) resolves to \(plugin)", MediaType(type).flatMap { registry.responseMatch(for: $0)?.plugin.name } ?? "none",
                    equals: plugin)
        }
    }

    private func codings(_ registry: SerializerRegistry) -> [CaseResult] {
        var results: [CaseResult] = [.expect("Accept-Encoding", registry.acceptEncoding ?? "none", equals: "gzip, deflate, br, zstd")]
        let sample = Array(String(repeating: "Sluice streams bytes through its plugins. ", count: 2_000).utf8)
        for name in ["gzip", "x-gzip", "deflate", "GZIP", "br", "zstd"] {
            guard let coding = registry.contentCoding(named: name) else {
                results.append(CaseResult(id: "coding \(name): registered", passed: false, detail: "not found"))
                continue
            }
            do {
                let encoded = try ContentCodingContract.encode(coding, sample)
                let decoded = try ContentCodingContract.decode(coding, encoded, chunk: 997)
                results.append(CaseResult(id: "coding \(name): round trip", passed: decoded == sample && encoded.count < sample.count / 10))
            } catch {
                results.append(CaseResult(id: "coding \(name): round trip", passed: false, detail: "\(error)"))
            }
        }
        results.append(.expect("coding compress: not registered", registry.contentCoding(named: "compress")?.name ?? "none", equals: "none"))
        return results
    }

    // MARK: Serializers

    /// Runs the serializer the registry picks for `type` on `body` with `status`: the value, or the error's code.
    private func decode(_ registry: SerializerRegistry, _ type: String, _ body: Data, status: Int = 200) -> Result<Any?, SluiceError> {
        guard let serializer = MediaType(type).flatMap({ registry.responseSerializer(for: $0) }) else {
            return .failure(SluiceError(.pluginNotFound, "no serializer for \(type)"))
        }
        let response = HTTPResponse(statusCode: status, headers: ["Content-Type": type])
        do {
            return .success(try serializer.serialize(request: nil, response: response, body: body))
        } catch {
            return .failure(error)
        }
    }

    private func expectError(_ id: String, _ result: Result<Any?, SluiceError>, _ code: SluiceError.Code) -> CaseResult {
        switch result {
        case .success(let value): CaseResult(id: id, passed: false, detail: "decoded \(String(describing: value))")
        case .failure(let error): .expect(id, error.code, equals: code)
        }
    }

    private func xml(_ registry: SerializerRegistry) -> [CaseResult] {
        var results: [CaseResult] = []
        let document = Data(#"<?xml version="1.0"?><feed xmlns="urn:feed"><item id="1">one</item><item id="2"><![CDATA[two]]></item></feed>"#.utf8)
        switch decode(registry, "application/atom+xml", document) {
        case .success(let value as XMLTree?):
            let strings = try? value?.xpath("//f:item", namespaces: ["f": "urn:feed"]).strings
            results.append(.expect("xml: a valid body decodes to a tree", strings ?? [], equals: ["one", "two"]))
        case .success(let value):
            results.append(CaseResult(id: "xml: a valid body decodes to a tree", passed: false, detail: "got \(String(describing: value))"))
        case .failure(let error):
            results.append(CaseResult(id: "xml: a valid body decodes to a tree", passed: false, detail: "\(error)"))
        }
        let malformed: [(String, String, Int, Int)] = [
            ("mismatched tags", "<a><b></a>", 1, 11), ("unclosed root", "<a>", 1, 4), ("empty body", "", 1, 1),
            ("truncated", "<a>\n<b x=", 2, 6),
        ]
        for (label, body, line, column) in malformed {
            let result = decode(registry, "application/xml", Data(body.utf8))
            results.append(expectError("xml: \(label) is xml.malformed", result, .xmlMalformed))
            if case .failure(let error) = result {
                let location = error.xmlDiagnostic.map { "\($0.line):\($0.column)" } ?? "none"
                results.append(.expect("xml: \(label) at line:column", location, equals: "\(line):\(column)"))
            }
        }
        results.append(expectError("xml: binary garbage is xml.malformed", decode(registry, "text/xml", Data([0xFF, 0xFE, 0x00, 0x7B])), .xmlMalformed))
        let attacks: [(String, String)] = [
            ("billion laughs", #"<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><l>&c;</l>"#),
            ("XXE file:///etc/passwd", #"<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>"#),
            ("parameter entity", #"<!DOCTYPE x [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><x/>"#),
        ]
        for (label, body) in attacks {
            results.append(expectError("xml: \(label) is refused", decode(registry, "application/xml", Data(body.utf8)), .xmlEntityRefused))
        }
        results.append(noContent(registry, "application/xml", plugin: "xml"))
        return results
    }

    private func propertyLists(_ registry: SerializerRegistry) -> [CaseResult] {
        var results: [CaseResult] = []
        let parameters: Parameters = ["name": "sluice", "count": 3, "list": [true, 0.5]]
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let label = format == .xml ? "XML" : "binary"
            do {
                let body = try PropertyListRequestSerializer.data(for: parameters, format: format)
                switch decode(registry, "application/x-plist", body) {
                case .success(let value):
                    results.append(.expect("plist: a valid \(label) body decodes", value as? Parameters, equals: parameters))
                case .failure(let error):
                    results.append(CaseResult(id: "plist: a valid \(label) body decodes", passed: false, detail: "\(error)"))
                }
            } catch {
                results.append(CaseResult(id: "plist: a valid \(label) body decodes", passed: false, detail: "\(error)"))
            }
        }
        let writer = registry.plugin(named: "plist")?.requestSerializer
        results.append(.expect("plist: offers a request serializer", writer?.contentType?.description ?? "none", equals: "application/x-plist"))
        results.append(expectError("plist: JSON bytes are plist.invalidData", decode(registry, "application/x-plist", Data(#"{"a":1}"#.utf8)), .propertyListInvalidData))
        results.append(expectError("plist: binary garbage is plist.invalidData", decode(registry, "application/x-plist", Data([0xFF, 0xFE, 0x00, 0x7B])), .propertyListInvalidData))
        results.append(noContent(registry, "application/x-plist", plugin: "plist"))
        return results
    }

    /// A 204 labelled with any type gives no value and no error.
    private func noContent(_ registry: SerializerRegistry, _ type: String, plugin: String) -> CaseResult {
        guard let serializer = MediaType(type).flatMap({ registry.responseSerializer(for: $0) }) else {
            return CaseResult(id: "\(plugin): 204 gives no value", passed: false, detail: "no serializer")
        }
        do {
            let value = try serializer.serialize(request: nil, response: HTTPResponse(statusCode: 204, headers: ["Content-Type": "text/html"]), body: Data())
            let empty = (value as? XMLTree?) == .some(nil) || (value as? Parameters?) == .some(nil)
            return CaseResult(id: "\(plugin): 204 gives no value", passed: empty, detail: empty ? nil : "got \(value)")
        } catch {
            return CaseResult(id: "\(plugin): 204 gives no value", passed: false, detail: "\(error)")
        }
    }
}
