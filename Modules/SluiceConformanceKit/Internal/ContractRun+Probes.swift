import Foundation
import SluiceCore

/// The probes derived from the author's samples (``ContractProbe``): what a careful sample set misses.
extension ContractRun {
    /// Every probe's findings, in ``ContractProbe/allCases`` order: one per sample it ran on (named with
    /// the sample's media type), or one saying why it did not run.
    func probeFindings(_ sequential: [(PluginSample, Outcome)]) -> [ContractFinding] {
        // The samples that decoded as they should: what the probes derive from.
        let decoding = sequential.filter { sample, outcome in
            guard sample.isValid, case .value(_, nil, _) = outcome else { return false }
            return true
        }.map(\.0)
        var findings: [ContractFinding] = []
        for probe in ContractProbe.allCases {
            if let reason = contract.disabledProbes[probe] {
                findings.append(.pass("probe \(probe)", "switched off: \(reason)"))
                continue
            }
            let applicable: [PluginSample]
            let none: String
            switch probe {
            case .utf16, .unknownCharset:
                applicable = decoding.filter(Self.isText)
                none = "no sample that decodes is of a text type (text/…, or one with a charset)"
            case .repeatedBody:
                applicable = decoding.filter { sample in
                    MediaType(sample.mediaType).map { contract.concatenatingMediaTypes.contains($0.essence) } == true
                }
                none = contract.concatenatingMediaTypes.isEmpty
                    ? "no media type is declared in concatenatingMediaTypes"
                    : "no sample that decodes is of \(contract.concatenatingMediaTypes.sorted().joined(separator: ", "))"
            case .truncatedBody:
                applicable = decoding.filter { $0.body.count >= 2 }
                none = "no sample that decodes has two bytes or more"
            }
            guard !applicable.isEmpty else {
                findings.append(.pass("probe \(probe)", "not run: \(none)"))
                continue
            }
            for sample in applicable {
                let rule = "probe \(probe): sample \"\(ReportText.excerpt(sample.name, limit: 60))\" (\(MediaType(sample.mediaType)?.essence ?? sample.mediaType))"
                switch probe {
                case .utf16: findings.append(utf16Probe(sample, rule: rule))
                case .unknownCharset: findings.append(unknownCharsetProbe(sample, rule: rule))
                case .repeatedBody: findings.append(repeatedBodyProbe(sample, rule: rule))
                case .truncatedBody: findings.append(truncatedBodyProbe(sample, rule: rule))
                }
            }
        }
        return findings
    }

    /// Whether a sample is text: a `text/…` type, or one the sample gives a charset.
    static func isText(_ sample: PluginSample) -> Bool {
        guard let type = MediaType(sample.mediaType) else { return false }
        return type.type == "text" || type.charset != nil
    }

    /// `mediaType` with its charset parameter set to `charset`.
    static func mediaType(_ mediaType: String, charset: String) -> String {
        guard let type = MediaType(mediaType) else { return mediaType }
        let parameters = type.parameters.filter { $0.name.lowercased() != "charset" } + [(name: "charset", value: charset)]
        return (try? MediaType(type: type.type, subtype: type.subtype, parameters: parameters))?.description ?? mediaType
    }

    /// A refusal that says why, or `nil` for any other outcome.
    static func saysWhy(_ outcome: Outcome) -> Bool {
        if case .error(_, let message, _) = outcome { return !message.isEmpty }
        return false
    }

    private func utf16Probe(_ sample: PluginSample, rule: String) -> ContractFinding {
        let response = HTTPResponse(statusCode: 200, headers: (try? HTTPHeaders(validating: ["Content-Type": sample.mediaType])) ?? HTTPHeaders())
        guard let text = try? response.text(of: sample.body) else {
            return .pass(rule, "not run: the body is not text in its own charset")
        }
        let variants: [(label: String, charset: String, bytes: Data)] = [
            ("charset=utf-16 with a byte order mark", "utf-16", Data([0xFF, 0xFE]) + (text.data(using: .utf16LittleEndian) ?? Data())),
            ("charset=utf-16le without one", "utf-16le", text.data(using: .utf16LittleEndian) ?? Data()),
            ("charset=utf-16be without one", "utf-16be", text.data(using: .utf16BigEndian) ?? Data()),
        ]
        var problems: [String] = []
        for variant in variants {
            let outcome = call(
                mediaType: Self.mediaType(sample.mediaType, charset: variant.charset), statusCode: sample.statusCode,
                method: sample.method, body: variant.bytes, expectation: sample.expectation)
            switch outcome {
            case .value(_, nil, _): continue
            case .value(_, let problem?, _): problems.append("\(variant.label): another value, \(problem)")
            case _ where Self.saysWhy(outcome): continue
            default: problems.append("\(variant.label): \(outcome)")
            }
        }
        guard let first = problems.first else { return .pass(rule, "the same value, or a refusal, from UTF-16 with and without a byte order mark") }
        return .fail(rule, expected: "the sample's value, or a SluiceError that says why", actual: first,
                     "the plugin must read the charset the Content-Type declares (HTTPResponse.text(of:) does) or refuse it"
                        + (problems.count > 1 ? "; \(problems.count) of 3 variants were wrong" : ""))
    }

    private func unknownCharsetProbe(_ sample: PluginSample, rule: String) -> ContractFinding {
        let outcome = call(
            mediaType: Self.mediaType(sample.mediaType, charset: "x-sluice-unknown"), statusCode: sample.statusCode,
            method: sample.method, body: sample.body, expectation: sample.expectation)
        if Self.saysWhy(outcome) { return .pass(rule) }
        return .fail(rule, expected: "a SluiceError: the charset x-sluice-unknown cannot be read", actual: outcome.description,
                     "text in a charset the plugin does not know must be refused, not read as UTF-8 (HTTPResponse.text(of:) refuses it)")
    }

    private func repeatedBodyProbe(_ sample: PluginSample, rule: String) -> ContractFinding {
        let once = (1 << 20) / max(sample.body.count, 1) + 1
        var sizes: [Int] = []
        for repeats in [once, once * 2] {
            var repeated = Data(capacity: sample.body.count * repeats)
            for _ in 0..<repeats { repeated.append(sample.body) }
            let body = repeated
            let registry = self.registry
            let (type, status, method) = (sample.mediaType, sample.statusCode, sample.method)
            let measured = BoundedCall.run(within: contract.callTimeout) { () -> (Outcome, Int) in
                Self.measure(registry, mediaType: type, statusCode: status, method: method, body: body)
            }
            guard let (outcome, size) = measured else {
                return .fail(rule, expected: "a value within \(contract.callTimeout) s", actual: "no answer",
                             "\(body.count) bytes (the body \(repeats) times) did not return in time")
            }
            guard case .value = outcome else {
                return .fail(rule, expected: "a value, as for the body once", actual: outcome.description,
                             "\(body.count) bytes (the body \(repeats) times) was not decoded")
            }
            sizes.append(size)
        }
        let detail = "\(sizes[0]) for the body \(once) times, \(sizes[1]) for \(once * 2) times"
        guard sizes[0] > 0, Double(sizes[1]) >= 1.8 * Double(sizes[0]) else {
            return .fail(rule, expected: "a value about twice as large for a body twice as long", actual: detail,
                         "the value does not grow with the body: the plugin cuts large bodies short (a buffer or read limit)")
        }
        return .pass(rule, detail)
    }

    private func truncatedBodyProbe(_ sample: PluginSample, rule: String) -> ContractFinding {
        let count = sample.body.count
        let cuts = Array(Set((1...12).map { max(1, min(count - 1, count * $0 / 13)) })).sorted()
        for cut in cuts {
            let outcome = call(
                mediaType: sample.mediaType, statusCode: sample.statusCode, method: sample.method,
                body: sample.body.prefix(cut), expectation: nil)
            switch outcome {
            case .value, .noValue: continue
            case _ where Self.saysWhy(outcome): continue
            default:
                return .fail(rule, expected: "a value or a SluiceError that says why", actual: outcome.description,
                             "the body cut after \(cut) of \(count) bytes")
            }
        }
        return .pass(rule, "cut at \(cuts.count) points")
    }

    /// Serializes a body and measures the value (``size(of:)``).
    static func measure(
        _ registry: SerializerRegistry, mediaType: String, statusCode: Int, method: HTTPMethod, body: Data
    ) -> (Outcome, Int) {
        guard let type = MediaType(mediaType), let serializer = registry.responseSerializer(for: type) else {
            return (.noSerializer, 0)
        }
        var headers = HTTPHeaders()
        try? headers.set(name: "Content-Type", value: mediaType)
        let request = HTTPRequest(url: "https://plugin.test/sample", method: method)
        let response = HTTPResponse(statusCode: statusCode, headers: headers, url: request.url)
        do {
            let value = try serializer.serialize(request: request, response: response, body: body)
            guard let unwrapped = PluginSample.Expectation.unwrap(value) else { return (.noValue, 0) }
            return (.value("", problem: nil, checked: false), size(of: unwrapped))
        } catch {
            return (.error(error.code, message: error.message, pluginMessage: error.library?.message), 0)
        }
    }

    /// How large a value is: the length of its description, which grows with every element and every
    /// byte of text it holds, whatever its type.
    static func size(of value: Any) -> Int { "\(value)".utf8.count }
}
