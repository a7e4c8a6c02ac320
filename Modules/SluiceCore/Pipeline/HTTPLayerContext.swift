/// What a layer knows of the call a hop belongs to.
///
/// A value: the session makes one per call, and the follow-ups give each hop its own with
/// ``hop`` counted up.
public struct HTTPLayerContext: Sendable {
    /// What the caller asked the response body to become.
    public enum Destination: Sendable, Hashable {
        /// Collected in memory.
        case memory
        /// Written to a file (a download).
        case file
        /// Delivered as it arrives.
        case stream
    }

    /// The call's task, which a layer may cancel or follow; `nil` when the layers run without a
    /// session (a harness's ``LayerChain``).
    public let task: (any TransportTask)?
    /// Where the body goes. A layer answers with any ``HTTPLayerBody``: the session turns it into this.
    public let destination: Destination
    /// The hop: 0 for the request as the caller sent it, 1 for the first redirect or authentication
    /// round, and so on. Layers above the follow-ups see 0 only.
    public var hop: Int

    /// A context for a call.
    ///
    /// - Parameters:
    ///   - task: The call's task. Default `nil`.
    ///   - destination: Where the body goes. Default ``Destination/memory``.
    ///   - hop: The hop. Default 0.
    public init(task: (any TransportTask)? = nil, destination: Destination = .memory, hop: Int = 0) {
        self.task = task
        self.destination = destination
        self.hop = hop
    }

    /// Whether the call was cancelled: its task, or the Swift task running the layer.
    public var isCancelled: Bool { Task.isCancelled || (task?.isCancelled ?? false) }

    /// Throws when the call was cancelled, as ``isCancelled`` says.
    ///
    /// - Throws: ``SluiceError/Code/cancelled``, carrying `request`.
    public func checkCancellation(_ request: HTTPRequest) throws(SluiceError) {
        if isCancelled { throw SluiceError(.cancelled, "the task was cancelled", request: request) }
    }
}
