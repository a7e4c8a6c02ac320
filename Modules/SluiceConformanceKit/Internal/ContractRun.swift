import Foundation
import SluiceCore

/// One run of a ``PluginContract`` on one registered plugin: checks each rule in turn.
struct ContractRun {
    /// What one call of a serializer came to, in a form that crosses threads and compares.
    enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// A value: its description, and what the sample's check found wrong with it (`nil`: nothing, or
        /// the sample expected no value).
        case value(String, problem: String?, checked: Bool)
        /// An `Optional` that is `nil`.
        case noValue
        /// A ``SluiceError``: its code, message, and the plugin's own message when it is a loaded library.
        case error(SluiceError.Code, message: String, pluginMessage: String?)
        /// No serializer resolved for the media type.
        case noSerializer
        /// The call did not return in time.
        case hung

        var description: String {
            switch self {
            case .value(let text, _, _): "a value: \(text.count > 200 ? text.prefix(200) + "…" : text)"
            case .noValue: "no value"
            case .error(let code, let message, _): "\(code.rawValue) (\(message))"
            case .noSerializer: "no serializer for the media type"
            case .hung: "no answer"
            }
        }

        /// The part that must be the same on every thread: whether a checked value passed its sample's
        /// check (a description may list a dictionary's keys in another order), else the description.
        var fingerprint: String {
            switch self {
            case .value(_, let problem, true): "value \(problem ?? "as expected")"
            case .value(let text, _, false): "value \(text)"
            case .error(let code, _, _): "error \(code.rawValue)"
            default: description
            }
        }
    }

    let contract: PluginContract
    let plugin: any SerializerPlugin
    let registry: SerializerRegistry
    /// The library the plugin was loaded from, or `nil` for a Swift value (the leak and message rules
    /// then apply to its C side).
    let libraryPath: String?

    var loaded: Bool { libraryPath != nil }

    func findings() -> [ContractFinding] {
        var findings: [ContractFinding] = []
        let declaresSomething = !plugin.responseMediaTypes.isEmpty || !plugin.contentCodings.isEmpty || plugin.requestSerializer != nil
        findings.append(declaresSomething
            ? .pass("declares media types, codings or a request serializer")
            : .fail("declares media types, codings or a request serializer", "the plugin declares nothing a registry could use"))
        let types = concreteMediaTypes()
        findings += mediaTypeRules(types)
        let sequential = contract.samples.map { ($0, call($0)) }
        findings += sequential.map(sampleRule)
        findings += types.flatMap(noContentRules)
        findings.append(threadSafetyRule(sequential))
        findings += codingRules()
        if let libraryPath { findings.append(leakRule(sequential, libraryPath: libraryPath)) }
        return findings
    }

    // MARK: Media types

    /// The declared media types that are not patterns, and the samples' types that a pattern covers.
    private func concreteMediaTypes() -> [MediaType] {
        var types: [MediaType] = []
        for declared in plugin.responseMediaTypes {
            if !declared.isWildcard {
                types.append(declared)
            } else {
                types += contract.samples.compactMap { MediaType($0.mediaType) }.filter(declared.matches)
            }
        }
        var seen = Set<String>()
        return types.filter { seen.insert($0.essence).inserted }
    }

    private func mediaTypeRules(_ types: [MediaType]) -> [ContractFinding] {
        var findings: [ContractFinding] = []
        for type in types {
            let resolved = registry.responseMatch(for: type)?.plugin.name
            findings.append(resolved == plugin.name
                ? .pass("\(type.essence) resolves to the plugin")
                : .fail("\(type.essence) resolves to the plugin", expected: plugin.name, actual: resolved ?? "nothing"))
            findings.append(plugin.makeResponseSerializer(for: type) != nil
                ? .pass("makes a serializer for \(type.essence)")
                : .fail("makes a serializer for \(type.essence)", expected: "a serializer", actual: "nil",
                        "the plugin declares \(type.essence) but makeResponseSerializer(for:) returns nil for it"))
        }
        for declared in plugin.responseMediaTypes {
            let rule = "\(declared) has a sample that decodes"
            let covered = contract.samples.contains { sample in
                sample.isValid && MediaType(sample.mediaType).map(declared.matches) == true
            }
            findings.append(covered
                ? .pass(rule)
                : .fail(rule, expected: "at least one sample", actual: "none",
                        "without a body it must decode, a plugin that never decodes anything would pass: add PluginSample(\"…\", mediaType: \"\(declared.isWildcard ? "a type under \(declared)" : declared.essence)\", body: …, decodesTo: …)"))
        }
        return findings
    }

    // MARK: Samples

    /// Runs `sample` through the serializer the registry picks for its media type, on a thread of its own.
    private func call(_ sample: PluginSample) -> Outcome {
        call(mediaType: sample.mediaType, statusCode: sample.statusCode, method: sample.method, body: sample.body,
             expectation: sample.expectation)
    }

    private func call(
        mediaType: String, statusCode: Int, method: HTTPMethod, body: Data?, headers extra: [(String, String)] = [],
        expectation: PluginSample.Expectation? = nil
    ) -> Outcome {
        let registry = self.registry
        return BoundedCall.run(within: contract.callTimeout) {
            Self.serialize(registry, mediaType: mediaType, statusCode: statusCode, method: method, body: body,
                           headers: extra, expectation: expectation)
        } ?? .hung
    }

    private static func serialize(
        _ registry: SerializerRegistry, mediaType: String, statusCode: Int, method: HTTPMethod, body: Data?,
        headers extra: [(String, String)], expectation: PluginSample.Expectation?
    ) -> Outcome {
        guard let type = MediaType(mediaType), let serializer = registry.responseSerializer(for: type) else {
            return .noSerializer
        }
        var headers = HTTPHeaders()
        try? headers.set(name: "Content-Type", value: mediaType)
        for (name, value) in extra { try? headers.set(name: name, value: value) }
        let request = HTTPRequest(url: "https://plugin.test/sample", method: method)
        let response = HTTPResponse(statusCode: statusCode, headers: headers, url: request.url)
        do {
            let value = try serializer.serialize(request: request, response: response, body: body)
            guard let unwrapped = PluginSample.Expectation.unwrap(value) else { return .noValue }
            guard case .decodes(_, let check)? = expectation else {
                return .value(String(describing: unwrapped), problem: nil, checked: false)
            }
            return .value(String(describing: unwrapped), problem: check(value), checked: true)
        } catch {
            return .error(error.code, message: error.message, pluginMessage: error.library?.message)
        }
    }

    private func sampleRule(_ sample: PluginSample, _ outcome: Outcome) -> ContractFinding {
        let rule = "sample \"\(sample.name)\" \(sample.expectation)"
        let expected = sample.expectation.description
        switch (sample.expectation, outcome) {
        case (_, .hung):
            return .fail(rule, expected: expected, actual: "no answer",
                         "the call did not return within \(contract.callTimeout) s (it was left running)")
        case (.decodes, .value(_, nil, _)), (.noValue, .noValue):
            return .pass(rule)
        case (.decodes, .value(_, let problem?, _)):
            return .fail(rule, expected: expected, actual: problem)
        case (.fails(let codes), .error(let code, let message, let pluginMessage)):
            if !codes.isEmpty, !codes.contains(code) {
                return .fail(rule, expected: expected, actual: code.rawValue, message)
            }
            if message.isEmpty || (loaded && (pluginMessage == nil || pluginMessage == LibraryDiagnostic.noPluginMessage)) {
                return .fail(rule, expected: "a failure that says why", actual: "\(code.rawValue) with no message",
                             loaded ? "decode returned SLUICE_PLUGIN_ERROR without setting *error_message" : nil)
            }
            return .pass(rule)
        case (.fails, .value), (.fails, .noValue):
            return .fail(rule, expected: expected, actual: outcome.description, "a body the plugin must refuse was accepted")
        default:
            return .fail(rule, expected: expected, actual: outcome.description)
        }
    }

    // MARK: Answers without content

    private func noContentRules(_ type: MediaType) -> [ContractFinding] {
        let cases: [(label: String, status: Int, method: HTTPMethod, body: Data?, headers: [(String, String)])] = [
            ("an empty 200 body", 200, .get, Data(), []),
            ("a 204", 204, .get, Data(), []),
            ("a 205", 205, .get, Data(), []),
            ("the answer to HEAD", 200, .head, nil, [("Content-Length", "4096")]),
        ]
        return cases.map { item in
            let rule = "\(item.label) as \(type.essence) gives no value"
            let outcome = call(mediaType: type.description, statusCode: item.status, method: item.method, body: item.body,
                               headers: item.headers)
            return outcome == .noValue ? .pass(rule) : .fail(rule, expected: "no value and no error", actual: outcome.description)
        }
    }

    // MARK: Threads

    private func threadSafetyRule(_ sequential: [(PluginSample, Outcome)]) -> ContractFinding {
        let rule = "the same outcomes from \(contract.threads) threads at once"
        let runnable = sequential.filter { $0.1 != .hung }
        guard !runnable.isEmpty, contract.threads > 1 else { return .pass(rule, "no samples to run") }
        let registry = self.registry
        let (threads, rounds) = (contract.threads, max(contract.rounds, 1))
        let expected = runnable.map { ($0.0, $0.1.fingerprint) }
        let samples = runnable.map(\.0)
        let budget = contract.callTimeout * Double(rounds * runnable.count) + 5
        let mismatches = BoundedCall.run(within: budget) { () -> [String] in
            let found = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for _ in 0..<rounds {
                    for (index, sample) in samples.enumerated() {
                        let outcome = Self.serialize(
                            registry, mediaType: sample.mediaType, statusCode: sample.statusCode, method: sample.method,
                            body: sample.body, headers: [], expectation: sample.expectation)
                        if outcome.fingerprint != expected[index].1 {
                            found.withLock { $0.append("\"\(sample.name)\" on thread \(thread): \(outcome)") }
                        }
                    }
                }
            }
            return found.withLock { $0 }
        }
        guard let mismatches else {
            return .fail(rule, expected: "every call returns", actual: "no answer within \(Int(budget)) s",
                         "the plugin deadlocked or slowed down under concurrent use")
        }
        guard let first = mismatches.first else { return .pass(rule) }
        return .fail(rule, expected: "the outcome of the call on one thread", actual: first,
                     "\(mismatches.count) of \(threads * rounds * samples.count) concurrent calls differed")
    }

    // MARK: Codings

    private func codingRules() -> [ContractFinding] {
        var findings: [ContractFinding] = []
        for coding in plugin.contentCodings {
            for name in [coding.name] + coding.aliases {
                let rule = "coding \(name) resolves"
                let found = registry.contentCoding(named: name)
                findings.append(found?.name == coding.name
                    ? .pass(rule)
                    : .fail(rule, expected: coding.name, actual: found?.name ?? "nothing"))
            }
            let samples = contract.codingSamples.filter { coding.answers(to: $0.coding) }
            findings += ContentCodingContract.findings(for: coding, samples: samples)
        }
        return findings
    }

    // MARK: Memory

    /// A loaded library's answers must not stay on the heap: every buffer its `decode` returns goes back
    /// through its `free_buffer`, which must free it. The calls go straight to the library's table in a
    /// forked child, where no other thread allocates; the median of five trials decides.
    private func leakRule(_ sequential: [(PluginSample, Outcome)], libraryPath: String) -> ContractFinding {
        let rule = "gives back the memory of its answers"
        let samples = sequential.filter { $0.1 != .hung && $0.1 != .noSerializer }.map(\.0)
        guard !samples.isEmpty else { return .pass(rule, "not checked: no sample to decode") }
        guard let table = LibraryTable(path: libraryPath) else { return .fail(rule, "the library's table could not be read again") }
        let calls = max(contract.leakCheckCalls, 10)
        let timeout = contract.callTimeout * Double(samples.count) * 6 + 10
        let bodies = samples.map { ($0.body, MediaType($0.mediaType)?.essence ?? $0.mediaType) }
        var measurement = table.measureGrowth(of: bodies, calls: calls, timeout: timeout)
        if case .timedOut = measurement {
            // A child forked while another thread held a lock the plugin needs never gets it: try once more.
            measurement = table.measureGrowth(of: bodies, calls: calls, timeout: timeout)
        }
        switch measurement {
        case .unavailable:
            return .pass(rule, LibraryTable.uncheckedLeakDetail)
        case .crashed(let signal):
            return .fail(rule, expected: "every call returns", actual: "the plugin died of signal \(signal)",
                         "decoding the samples \(calls) times in a child process crashed it")
        case .timedOut:
            return .fail(rule, expected: "every call returns", actual: "no answer within \(Int(timeout)) s")
        case .growth(let growth):
            let perCall = Double(growth) / Double(calls * samples.count)
            let text = "\(growth) bytes over \(calls * samples.count) calls (\(String(format: "%.1f", perCall)) per call, median of 5 trials)"
            return perCall < 8
                ? .pass(rule, text)
                : .fail(rule, expected: "the heap back where it was", actual: text,
                        "decode's buffers are not freed by free_buffer, or decode keeps memory of its own")
        }
    }
}
