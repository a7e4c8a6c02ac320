import Foundation
import Testing

extension Tag {
    /// Needs the servers of `Tools/testenv` (nginx, httpbin, the proxies, the fault proxy, the Python test
    /// servers): run by `make test`, not by `make check`.
    @Tag public static var server: Tag

    /// Slow: gigabyte transfers, memory probes, browsers, network namespaces, crash loops. Run by
    /// `make test`, not by `make check`.
    @Tag public static var slow: Tag
}

/// Which tests this run includes: every test (`make test`), or only those that need no server and are not
/// slow (`make check`, which sets `SLUICE_TEST_TIER=check` and starts nothing).
///
/// A suite that needs the servers carries both `.tags(.server)` and ``Trait/needsServers``; a slow one
/// `.tags(.slow)` and ``Trait/runsLong``. The tag names the tier; the condition leaves the test out of
/// `make check`. `make test` fails when any test was left out, so no test is skipped where it should run.
public enum TestTier: String, Sendable {
    /// Everything: the default.
    case all
    /// Only the tests that need no server and are not slow.
    case check

    /// The tier this process runs: `SLUICE_TEST_TIER`, `all` when unset.
    public static let current: TestTier = {
        guard let value = ProcessInfo.processInfo.environment["SLUICE_TEST_TIER"], !value.isEmpty else { return .all }
        guard let tier = TestTier(rawValue: value) else {
            fatalError("SLUICE_TEST_TIER=\(value) names no tier (all, check)")
        }
        return tier
    }()
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only in a tier that has the servers (`make test`); pair it with `.tags(.server)`.
    public static var needsServers: Self {
        .enabled(if: TestTier.current == .all, "needs the servers of Tools/testenv: make test runs it")
    }

    /// Runs the test only in the full tier (`make test`); pair it with `.tags(.slow)`.
    public static var runsLong: Self {
        .enabled(if: TestTier.current == .all, "slow: make test runs it")
    }
}
