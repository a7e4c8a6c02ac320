/// What a ``ConformanceSuite`` needs from outside the tool before it can run.
///
/// A suite with no requirements runs anywhere. The runner reports a suite whose servers are absent as
/// *not run* (with the command that starts them) instead of running it; the `sluice-conformance` command
/// refuses to start (exit status 2) when a selected suite needs vectors and none can be found.
public struct ConformanceRequirements: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: Int

    /// Creates requirements from option bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The vector data in `Tests/Vectors` (or `--vectors DIR`).
    public static let vectors = ConformanceRequirements(rawValue: 1 << 0)
    /// The local servers of `Tools/testenv`, running and reachable.
    public static let servers = ConformanceRequirements(rawValue: 1 << 1)
}
