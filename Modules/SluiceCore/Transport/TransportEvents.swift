/// Who hears of an ``HTTPTransport`` exchange while it runs. Every handler defaults to `nil` (no one).
public struct TransportEvents: Sendable {
    /// Called with the attempt's task before it starts: to keep it (to cancel or suspend it) or to
    /// follow it.
    public var didCreateTask: (@Sendable (any TransportTask) -> Void)?
    /// Called as bytes move, on an unspecified thread, never concurrently with itself; intermediate
    /// reports may be skipped. On success its last call, made before the exchange returns, has the
    /// final counts.
    public var progress: (@Sendable (TransferProgress) -> Void)?

    /// Events going to these handlers.
    ///
    /// - Parameters:
    ///   - didCreateTask: As ``didCreateTask``. Default `nil`.
    ///   - progress: As ``progress``. Default `nil`.
    public init(
        didCreateTask: (@Sendable (any TransportTask) -> Void)? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.didCreateTask = didCreateTask
        self.progress = progress
    }
}
