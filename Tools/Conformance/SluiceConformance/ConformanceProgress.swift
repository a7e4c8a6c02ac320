/// What ``ConformanceRunner/run(_:in:progress:)`` reports while it runs, suite by suite.
public enum ConformanceProgress: Sendable {
    /// The suite `name`, the `position`th of `total` (counting from 1), is about to run.
    case started(name: String, position: Int, total: Int)
    /// A suite ended (passed, failed, could not run, or was not run), the `position`th of `total`.
    case finished(ConformanceReport.Suite, position: Int, total: Int)
}
