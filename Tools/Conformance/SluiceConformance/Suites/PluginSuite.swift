import Foundation
import SluiceCore

/// `plugins.loadable`: loads each plugin library given with `--plugin` and checks its contract: it
/// loads and registers, its name and version are valid, every media type it declares resolves to it,
/// an empty body gives no value and no error, and a body it cannot read is `registry.pluginFailed` carrying
/// the plugin's message (or is accepted), never a crash.
struct PluginSuite: ConformanceSuite {
    let name = "plugins.loadable"
    let summary = "plugin libraries (--plugin PATH) load through the C table and meet the serializer contract"

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        guard !context.pluginPaths.isEmpty else {
            return [CaseResult(id: "no plugin libraries given", passed: true, detail: "pass --plugin PATH to check one")]
        }
        var results: [CaseResult] = []
        for path in context.pluginPaths {
            let file = URL(fileURLWithPath: path).lastPathComponent
            let registry = SerializerRegistry()
            let summary: PluginSummary
            do {
                summary = try registry.load(pluginAt: path)
            } catch {
                results.append(CaseResult(id: "\(file): loads", passed: false, detail: "\(error)"))
                continue
            }
            results.append(CaseResult(id: "\(file): loads as \(summary.name) \(summary.version)", passed: true))
            results.append(.expect("\(file): declares media types", summary.responseMediaTypes.isEmpty, equals: false))
            for declared in summary.responseMediaTypes {
                guard let type = MediaType(declared), !type.isWildcard else { continue }
                let match = registry.responseMatch(for: type)
                results.append(.expect("\(file): \(declared) resolves to the plugin", match?.plugin.name ?? "none", equals: summary.name))
                guard let serializer = match?.serializer else { continue }
                let response = HTTPResponse(statusCode: 200, headers: ["Content-Type": declared])
                do {
                    let value = try serializer.serialize(request: nil, response: response, body: Data())
                    let empty = (value as? Parameters?) == nil || (value as? Parameters?) == .some(nil)
                    results.append(CaseResult(id: "\(file): \(declared) empty body gives no value", passed: empty,
                                              detail: empty ? nil : "got \(value)"))
                } catch {
                    results.append(CaseResult(id: "\(file): \(declared) empty body gives no value", passed: false, detail: "\(error)"))
                }
                do {
                    _ = try serializer.serialize(request: nil, response: response, body: Data([0xFF, 0xFE, 0x00, 0x7B]))
                    results.append(CaseResult(id: "\(file): \(declared) unreadable body", passed: true, detail: "accepted"))
                } catch {
                    // A loaded plugin's failure comes back as registry.pluginFailed with the plugin's message.
                    let typed = error.code == .pluginFailed && error.library?.library == summary.name
                    results.append(CaseResult(
                        id: "\(file): \(declared) unreadable body is a typed error", passed: typed,
                        detail: typed ? nil : "got \(error)"))
                }
            }
        }
        return results
    }
}
