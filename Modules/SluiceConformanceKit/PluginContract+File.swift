import Foundation
import SluiceCore

extension SluiceError.Code {
    /// A samples file that cannot be read: not JSON, a sample without a body or an expectation, a value
    /// that is not JSON, base64 that does not decode.
    public static let invalidSamples: Self = "conformance.invalidSamples"
}

extension PluginContract {
    /// A contract whose samples come from a JSON file, for plugins checked without Swift code (a C
    /// plugin, `sluice-conformance --plugin-samples`).
    ///
    /// The file holds one object:
    ///
    /// ```json
    /// {
    ///   "samples": [
    ///     {"name": "two lines", "mediaType": "text/x-lines", "body": "a\nb\n", "expect": {"value": ["a", "b"]}},
    ///     {"name": "not UTF-8", "mediaType": "text/x-lines", "bodyBase64": "/w==", "expect": {"error": ["registry.pluginFailed"]}},
    ///     {"name": "a 204", "mediaType": "text/x-lines", "status": 204, "body": "", "expect": "noValue"}
    ///   ],
    ///   "codingSamples": [{"coding": "gzip", "encodedBase64": "H4sIAAAAAAAAA8vIBACsKpPYAgAAAA==", "decodedBase64": "aGk="}],
    ///   "concatenatingMediaTypes": ["text/x-lines"],
    ///   "disabledProbes": {"truncated body": "every prefix of a line list is a line list"},
    ///   "intentionalWildcards": {}
    /// }
    /// ```
    ///
    /// `status` defaults to 200 and `method` to `GET`; a body is `body` (text) or `bodyBase64`; `value`
    /// is compared as ``Parameters`` (what a loaded plugin's JSON becomes); an empty `error` list accepts
    /// any code. The last three keys are optional: ``concatenatingMediaTypes``, ``disabledProbes`` (by
    /// ``ContractProbe`` raw value, each with its reason) and ``intentionalWildcards``.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - callTimeout: The longest one call into the plugin may take, in seconds (``callTimeout``).
    ///     Default 5.
    ///   - threads: How many threads use the plugin at once in the thread-safety rule (``threads``).
    ///     Default 8.
    ///   - rounds: How many times each thread runs every sample in the thread-safety rule (``rounds``).
    ///     Default 20.
    ///   - leakCheckCalls: How many calls of each sample the leak rule of a loaded library makes per trial
    ///     (``leakCheckCalls``). Default 500.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/invalidSamples`` naming the file and what is wrong.
    public init(
        contentsOf url: URL, callTimeout: Double = 5, threads: Int = 8, rounds: Int = 20, leakCheckCalls: Int = 500
    ) throws(SluiceError) {
        let path = url.path
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
                throw SluiceError(.invalidSamples, "\(path) does not hold a JSON object")
            }
            root = object
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.invalidSamples, "cannot read the samples in \(path): \(error.localizedDescription)")
        }
        guard let entries = root["samples"] as? [[String: Any]] else {
            throw SluiceError(.invalidSamples, "\(path): no \"samples\" array of objects")
        }
        var samples: [PluginSample] = []
        for (index, entry) in entries.enumerated() {
            samples.append(try SampleFile.sample(entry, label: "\(path): sample \(index + 1)"))
        }
        var codingSamples: [CodingSample] = []
        for (index, entry) in ((root["codingSamples"] as? [[String: Any]]) ?? []).enumerated() {
            guard let coding = entry["coding"] as? String,
                let encoded = (entry["encodedBase64"] as? String).flatMap({ Data(base64Encoded: $0) }),
                let decoded = (entry["decodedBase64"] as? String).flatMap({ Data(base64Encoded: $0) })
            else {
                throw SluiceError(.invalidSamples, "\(path): coding sample \(index + 1) needs coding, encodedBase64 and decodedBase64 (base64)")
            }
            codingSamples.append(CodingSample(coding: coding, encoded: Array(encoded), decoded: Array(decoded)))
        }
        let concatenating = root["concatenatingMediaTypes"] ?? []
        guard let concatenating = concatenating as? [String] else {
            throw SluiceError(.invalidSamples, "\(path): concatenatingMediaTypes must be an array of media types")
        }
        let wildcards = root["intentionalWildcards"] ?? [String: String]()
        guard let wildcards = wildcards as? [String: String] else {
            throw SluiceError(.invalidSamples, "\(path): intentionalWildcards must map media types to reasons")
        }
        let disabled = root["disabledProbes"] ?? [String: String]()
        guard let disabled = disabled as? [String: String] else {
            throw SluiceError(.invalidSamples, "\(path): disabledProbes must map probe names to reasons")
        }
        var probes: [ContractProbe: String] = [:]
        for (name, reason) in disabled {
            guard let probe = ContractProbe(rawValue: name) else {
                throw SluiceError(
                    .invalidSamples,
                    "\(path): disabledProbes names \(name.debugDescription); the probes are \(ContractProbe.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            probes[probe] = reason
        }
        self.init(samples: samples, codingSamples: codingSamples, callTimeout: callTimeout, threads: threads, rounds: rounds,
                  leakCheckCalls: leakCheckCalls, disabledProbes: probes, intentionalWildcards: wildcards,
                  concatenatingMediaTypes: Set(concatenating))
    }
}

/// Reads the entries of a samples file.
private enum SampleFile {
    static func sample(_ entry: [String: Any], label: String) throws(SluiceError) -> PluginSample {
        guard let name = entry["name"] as? String, let mediaType = entry["mediaType"] as? String else {
            throw SluiceError(.invalidSamples, "\(label): needs a name and a mediaType")
        }
        let label = "\(label) (\(name))"
        let bytes: Data
        switch (entry["body"] as? String, entry["bodyBase64"] as? String) {
        case (let text?, nil): bytes = Data(text.utf8)
        case (nil, let base64?):
            guard let decoded = Data(base64Encoded: base64) else { throw SluiceError(.invalidSamples, "\(label): bodyBase64 is not base64") }
            bytes = decoded
        default: throw SluiceError(.invalidSamples, "\(label): give one of body and bodyBase64")
        }
        let expectation: PluginSample.Expectation
        switch entry["expect"] {
        case let word as String where word == "noValue":
            expectation = .noValue
        case let object as [String: Any] where object["error"] is [String]:
            expectation = .fails(codes: Set((object["error"] as! [String]).map(SluiceError.Code.init(rawValue:))))
        case let object as [String: Any] where object.keys.contains("value"):
            do {
                let json = try JSONSerialization.data(withJSONObject: object["value"]!, options: [.fragmentsAllowed])
                expectation = .decodes(to: try Parameters(json: json))
            } catch {
                throw SluiceError(.invalidSamples, "\(label): value is not JSON: \(error)")
            }
        default:
            throw SluiceError(.invalidSamples, "\(label): expect must be \"noValue\", {\"error\": [codes]} or {\"value\": JSON}")
        }
        let status = entry["status"] as? Int ?? 200
        let method = HTTPMethod(rawValue: entry["method"] as? String ?? "GET")
        return PluginSample(name, mediaType: mediaType, statusCode: status, method: method, body: bytes, expectation: expectation)
    }
}
