import CSluiceHeap
import Foundation
import SluiceCore

/// The contract a serializer plugin meets, checked on the plugin author's own samples: what a user of
/// the registry relies on when the plugin is registered, whether it is a Swift value or a loaded library.
///
/// Add it to a test target and run it on the plugin:
///
/// ```swift
/// let contract = PluginContract(samples: samples, concatenatingMediaTypes: ["text/csv"])
/// let report = await contract.check(CSVSerializerPlugin())
/// #expect(report.passed, "\(report)")
/// ```
///
/// The rules, each reported as a ``ContractFinding``:
/// - the plugin registers (a valid name and version) and declares something, and no catch-all media type
///   (`*/*`, `text/*`) unless ``intentionalWildcards`` says why;
/// - every media type it declares resolves to it through the registry, and it makes a serializer for it;
/// - every declared media type has at least one sample that decodes (a plugin is not checked on nothing);
/// - each sample gives what it expects: a value the sample accepts, or a ``SluiceError`` with one of its
///   codes carrying a message, within ``callTimeout`` (a call that hangs is a broken rule, not a hang);
/// - an empty body, a `204` and a `205` with any type, and the answer to a `HEAD` give no value and no error;
/// - the samples give the same outcomes from ``threads`` threads at once as one at a time: dedicated
///   threads released together at a barrier before every call, each on another sample, so that many
///   calls are in flight whatever the core count (the report says how many were);
/// - the probes derived from the samples (``ContractProbe``): UTF-16 text, an unknown charset, a body
///   repeated past 1 MiB, a body cut short;
/// - each content coding resolves by its name and aliases and meets ``ContentCodingContract``;
/// - a loaded library gives back the memory its `decode` answers take (the heap does not grow over
///   repeated calls), measured for each sample on its own so a leak on one path (a refusal) is not
///   averaged away by the others.
///
/// Reports stay readable: a long value is shown as an excerpt, and a wrong one around its first
/// difference from the expected value.
///
/// A plugin that crashes the process cannot be reported from inside it: the test run ends there, which
/// is the report.
public struct PluginContract: Sendable {
    /// The response bodies to check the plugin on. Default none (every declared media type then breaks
    /// the "has a sample" rule).
    public var samples: [PluginSample]
    /// Encoded bodies for the plugin's content codings; needed for a coding that cannot encode. Default none.
    public var codingSamples: [CodingSample]
    /// The longest one call into the plugin may take, in seconds. Default 5.
    public var callTimeout: Double
    /// How many threads use the plugin at once in the thread-safety rule. Default 8.
    public var threads: Int
    /// How many times each thread runs every sample in the thread-safety rule. Default 20.
    public var rounds: Int
    /// How many calls of each sample the leak rule of a loaded library makes per trial. Default 500.
    public var leakCheckCalls: Int
    /// The derived probes switched off, each with the reason the report prints. Default none: every
    /// probe runs where it applies.
    public var disabledProbes: [ContractProbe: String]
    /// Catch-all media types the plugin declares on purpose (`*/*`, `text/*`), each with the reason the
    /// report prints. A catch-all takes every response no other plugin claims more closely, so one
    /// declared without a reason is a broken rule. Default none.
    public var intentionalWildcards: [String: String]
    /// Media types (essences, `text/csv`) whose bodies can be concatenated into a longer valid body:
    /// the ``ContractProbe/repeatedBody`` probe runs on their samples. Default none.
    public var concatenatingMediaTypes: Set<String>

    /// Creates a contract.
    ///
    /// - Parameters:
    ///   - samples: Default none.
    ///   - codingSamples: Default none.
    ///   - callTimeout: Seconds. Default 5.
    ///   - threads: Default 8.
    ///   - rounds: Default 20.
    ///   - leakCheckCalls: Default 500.
    ///   - disabledProbes: Probes switched off, with reasons. Default none.
    ///   - intentionalWildcards: Catch-all media types declared on purpose, with reasons. Default none.
    ///   - concatenatingMediaTypes: Types whose bodies concatenate. Default none.
    public init(
        samples: [PluginSample] = [], codingSamples: [CodingSample] = [], callTimeout: Double = 5, threads: Int = 8,
        rounds: Int = 20, leakCheckCalls: Int = 500, disabledProbes: [ContractProbe: String] = [:],
        intentionalWildcards: [String: String] = [:], concatenatingMediaTypes: Set<String> = []
    ) {
        self.samples = samples
        self.codingSamples = codingSamples
        self.callTimeout = callTimeout
        self.threads = threads
        self.rounds = rounds
        self.leakCheckCalls = leakCheckCalls
        self.disabledProbes = disabledProbes
        self.intentionalWildcards = intentionalWildcards
        self.concatenatingMediaTypes = concatenatingMediaTypes
    }

    /// Whether this process can check the leak rule of a loaded library: its malloc is glibc's, whose
    /// heap can be read (not under AddressSanitizer or ThreadSanitizer, which bring their own). Where it
    /// cannot, the rule passes with a detail saying it was not checked.
    public static var measuresLeaks: Bool { sluice_heap_tracks_malloc() == 1 }

    /// Checks a plugin value, registered into a registry of its own.
    public func check(_ plugin: any SerializerPlugin) async -> PluginContractReport {
        await runOffTheCaller {
            let registry = SerializerRegistry()
            do throws(SluiceError) {
                try registry.register(plugin)
            } catch {
                return PluginContractReport(
                    plugin: plugin.name, findings: [.fail("registers", actual: error.code.rawValue, error.message)])
            }
            return PluginContractReport(
                plugin: plugin.name, findings: [.pass("registers")] + ContractRun(contract: self, plugin: plugin, registry: registry, libraryPath: nil).findings())
        }
    }

    /// Loads a plugin library (`.so`) into a registry of its own and checks it as ``check(_:)`` does,
    /// plus the leak rule.
    ///
    /// - Parameters:
    ///   - path: The library.
    ///   - maximumOutputBytes: As ``SerializerRegistry/load(pluginAt:replacing:maximumOutputBytes:)``.
    ///     Default ``SerializerRegistry/defaultMaximumPluginOutputBytes``.
    public func check(
        libraryAt path: String, maximumOutputBytes: Int = SerializerRegistry.defaultMaximumPluginOutputBytes
    ) async -> PluginContractReport {
        await runOffTheCaller {
            let registry = SerializerRegistry()
            let summary: PluginSummary
            do throws(SluiceError) {
                summary = try registry.load(pluginAt: path, maximumOutputBytes: maximumOutputBytes)
            } catch {
                return PluginContractReport(plugin: path, findings: [.fail("loads", actual: error.code.rawValue, error.message)])
            }
            guard let plugin = registry.plugin(named: summary.name) else {
                return PluginContractReport(plugin: path, findings: [.fail("loads", "loaded, but not found in the registry")])
            }
            return PluginContractReport(
                plugin: summary.name,
                findings: [.pass("loads", "\(summary.name) \(summary.version)")]
                    + ContractRun(contract: self, plugin: plugin, registry: registry, libraryPath: path).findings())
        }
    }

    /// Runs `body` on a thread of its own, so the waits inside never hold one of Swift's cooperative threads.
    private func runOffTheCaller(_ body: @escaping @Sendable () -> PluginContractReport) async -> PluginContractReport {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
