/// The exit status of `sluice-conformance`, stable for scripts and CI.
public enum ConformanceExitStatus: Int32, Sendable {
    /// Every selected suite ran and every case passed.
    case passed = 0
    /// A case failed, a suite could not run, or a suite that needs the servers was not run because they
    /// are absent (so a run without servers is never mistaken for a pass).
    case failed = 1
    /// The tool itself could not run: a bad option, an unknown suite, a missing vectors directory, an
    /// unreadable `--servers` file, an unwritable report directory.
    case unusable = 2

    /// The status for `report`: ``passed`` when it passed, else ``failed``.
    public init(_ report: ConformanceReport) {
        self = report.passed ? .passed : .failed
    }
}
