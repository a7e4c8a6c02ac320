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
        findings += catchAllRules()
        let types = concreteMediaTypes()
        findings += mediaTypeRules(types)
        let sequential = contract.samples.map { ($0, call($0)) }
        findings += sequential.map(sampleRule)
        findings += types.flatMap(noContentRules)
        findings.append(threadSafetyRule(sequential))
        findings += probeFindings(sequential)
        findings += codingRules()
        if let libraryPath { findings.append(leakRule(sequential, libraryPath: libraryPath)) }
        return findings
    }

    // MARK: Media types

    /// A declared `*/*` or `type/*` takes every response no other plugin claims more closely (the
    /// registry ranks it last, but it ranks): a finding unless the author said it is meant.
    private func catchAllRules() -> [ContractFinding] {
        plugin.responseMediaTypes.filter { $0.subtype == "*" }.map { declared in
            let rule = "\(declared.essence) is not a catch-all, or is meant"
            if let reason = contract.intentionalWildcards[declared.essence] ?? contract.intentionalWildcards[declared.description] {
                return .pass(rule, "meant: \(reason)")
            }
            let takes = declared.type == "*" ? "every response" : "every \(declared.type)/… response"
            return .fail(
                rule, expected: "concrete media types (text/csv) or a +suffix pattern (application/*+csv)",
                actual: "the catch-all \(declared.essence)",
                "it takes \(takes) that no plugin declares more closely; declare the types the plugin reads, or say why in PluginContract(intentionalWildcards: [\"\(declared.essence)\": \"the reason\"])")
        }
    }

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
    func call(_ sample: PluginSample) -> Outcome {
        call(mediaType: sample.mediaType, statusCode: sample.statusCode, method: sample.method, body: sample.body,
             expectation: sample.expectation)
    }

    func call(
        mediaType: String, statusCode: Int, method: HTTPMethod, body: Data?, headers extra: [(String, String)] = [],
        expectation: PluginSample.Expectation? = nil
    ) -> Outcome {
        let registry = self.registry
        return BoundedCall.run(within: contract.callTimeout) {
            Self.serialize(registry, mediaType: mediaType, statusCode: statusCode, method: method, body: body,
                           headers: extra, expectation: expectation)
        } ?? .hung
    }

    static func serialize(
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

    /// Every runnable sample from ``PluginContract/threads`` dedicated threads, ``PluginContract/rounds``
    /// times: before each call the threads meet at a barrier and are released together, each on another
    /// sample (a shared buffer garbles only when the calls that share it read different bodies).
    private func threadSafetyRule(_ sequential: [(PluginSample, Outcome)]) -> ContractFinding {
        let rule = "the same outcomes from \(contract.threads) threads at once"
        let runnable = sequential.filter { $0.1 != .hung }
        guard !runnable.isEmpty, contract.threads > 1 else { return .pass(rule, "no samples to run") }
        let registry = self.registry
        let (threads, rounds) = (contract.threads, max(contract.rounds, 1))
        let expected = runnable.map { $0.1.fingerprint }
        let samples = runnable.map(\.0)
        let budget = contract.callTimeout * Double(rounds * runnable.count) + 5
        let attempt = { () -> (mismatches: [String], overlap: Int)? in BoundedCall.run(within: budget) { () -> (mismatches: [String], overlap: Int) in
            let barrier = ThreadBarrier(count: threads)
            let inFlight = InFlightCounter()
            let found = Locked<[String]>([])
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                let worker = Thread {
                    for _ in 0..<rounds {
                        for step in 0..<samples.count {
                            let index = (step + thread) % samples.count
                            let sample = samples[index]
                            barrier.wait()
                            inFlight.enter()
                            let outcome = Self.serialize(
                                registry, mediaType: sample.mediaType, statusCode: sample.statusCode, method: sample.method,
                                body: sample.body, headers: [], expectation: sample.expectation)
                            inFlight.leave()
                            if outcome.fingerprint != expected[index] {
                                found.withLock { $0.append("\"\(sample.name)\" on thread \(thread): \(outcome)") }
                            }
                        }
                    }
                    group.leave()
                }
                worker.stackSize = 8 << 20
                worker.start()
            }
            group.wait()
            return (found.withLock { $0 }, inFlight.most)
        } }
        // A loaded machine may not run every thread at once: a run that found nothing without all of them
        // in flight together is run again (three runs at most), so a race is not missed for want of overlap.
        var run = attempt()
        var runs = 1
        while let passed = run, passed.mismatches.isEmpty, passed.overlap < threads, runs < 3 {
            run = attempt()
            runs += 1
        }
        guard let run else {
            return .fail(rule, expected: "every call returns", actual: "no answer within \(Int(budget)) s",
                         "the plugin deadlocked or slowed down under concurrent use")
        }
        let overlap = "at most \(run.overlap) of \(threads) calls were in flight at once" + (runs > 1 ? " (run \(runs) of 3)" : "")
        guard let first = run.mismatches.first else { return .pass(rule, overlap) }
        return .fail(rule, expected: "the outcome of the call on one thread", actual: first,
                     "\(run.mismatches.count) of \(threads * rounds * samples.count) concurrent calls differed; \(overlap)")
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
    /// forked child, where no other thread allocates; the median of five trials decides. Each sample is
    /// measured on its own (or, past 64 samples, each outcome: the values, and each refusal's code), so a
    /// leak on one path is not averaged away by the calls that do not leak.
    private func leakRule(_ sequential: [(PluginSample, Outcome)], libraryPath: String) -> ContractFinding {
        let rule = "gives back the memory of its answers"
        let measured = sequential.filter { $0.1 != .hung && $0.1 != .noSerializer }
        guard !measured.isEmpty else { return .pass(rule, "not checked: no sample to decode") }
        guard let table = LibraryTable(path: libraryPath) else { return .fail(rule, "the library's table could not be read again") }
        // Groups of samples measured together: one each, or one per outcome when there are many.
        var groups: [(label: String, samples: [PluginSample])] = []
        if measured.count <= 64 {
            groups = measured.map { ("sample \"\($0.0.name)\"", [$0.0]) }
        } else {
            var byOutcome: [String: [PluginSample]] = [:]
            var order: [String] = []
            for (sample, outcome) in measured {
                let key: String
                switch outcome {
                case .error(let code, _, _): key = "refusals \(code.rawValue)"
                default: key = "values"
                }
                if byOutcome[key] == nil { order.append(key) }
                byOutcome[key, default: []].append(sample)
            }
            groups = order.map { ($0, byOutcome[$0]!) }
        }
        let calls = max(contract.leakCheckCalls, 10)
        var leaks: [String] = []
        var worst = 0.0
        var total = (growth: 0, calls: 0)
        for group in groups {
            let timeout = contract.callTimeout * Double(group.samples.count) * 6 + 10
            let bodies = group.samples.map { ($0.body, MediaType($0.mediaType)?.essence ?? $0.mediaType) }
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
                             "decoding \(group.label) \(calls) times in a child process crashed it")
            case .timedOut:
                return .fail(rule, expected: "every call returns", actual: "no answer within \(Int(timeout)) s for \(group.label)")
            case .growth(let growth):
                let count = calls * group.samples.count
                let perCall = Double(growth) / Double(count)
                total = (total.growth + growth, total.calls + count)
                worst = max(worst, perCall)
                if perCall >= 8 { leaks.append("\(group.label): \(String(format: "%.1f", perCall)) bytes per call") }
            }
        }
        let summary = "\(groups.count) measured on their own, \(calls) calls each in 5 trials; at most \(String(format: "%.1f", worst)) bytes per call (\(total.growth) bytes over \(total.calls) calls, median of 5 trials)"
        guard !leaks.isEmpty else { return .pass(rule, summary) }
        return .fail(rule, expected: "the heap back where it was after every sample", actual: leaks.joined(separator: "; "),
                     "decode's buffers are not freed by free_buffer, or decode keeps memory of its own, on these paths; \(summary)")
    }
}
