/// Who hears of an ``HTTPTransport`` exchange while it runs. Every handler defaults to `nil` (no one).
public struct TransportEvents: Sendable {
    /// Called with the attempt's task before it starts: to keep it (to cancel or suspend it) or to
    /// follow it.
    public var didCreateTask: (@Sendable (any TransportTask) -> Void)?
    /// Called as bytes move, on an unspecified thread, never concurrently with itself; intermediate
    /// reports may be skipped. On success its last call, made before the exchange returns, has the
    /// final counts.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Called once the exchange's task has ended: with its metrics (every hop's transaction, each marked
    /// with where its response came from), or with the error it ended with. For a body delivered as a
    /// stream, that is when the stream has ended, after the exchange returned.
    public var didComplete: (@Sendable (Result<TaskMetrics, SluiceError>) -> Void)?

    /// Events going to these handlers.
    ///
    /// - Parameters:
    ///   - didCreateTask: As ``didCreateTask``. Default `nil`.
    ///   - progress: As ``progress``. Default `nil`.
    ///   - didComplete: As ``didComplete``. Default `nil`.
    public init(
        didCreateTask: (@Sendable (any TransportTask) -> Void)? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        didComplete: (@Sendable (Result<TaskMetrics, SluiceError>) -> Void)? = nil
    ) {
        self.didCreateTask = didCreateTask
        self.progress = progress
        self.didComplete = didComplete
    }
}
