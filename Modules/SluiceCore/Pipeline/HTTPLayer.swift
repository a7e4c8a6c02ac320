/// One step of a session's pipeline: it sees every request sent through the session, each redirect hop
/// and authentication round, and may answer without the network.
///
/// A session sends every request — whichever API sent it, and whatever becomes of its body (memory,
/// a file, a stream, a resumed download) — down one chain of layers. From the top: the session
/// configuration's `layers` (the caller's; `SessionConfiguration`, in SluiceTransport), follow-ups
/// (redirects, 401 rounds), a bridge (default headers, `Accept-Encoding`, decoding), a cache slot, the
/// network layers, and one exchange of one hop on the network at the bottom.
///
/// A layer may:
/// - pass the request on, changed or not: `try await next(request, context: context)`;
/// - answer without calling `next`: ``HTTPLayerResponse`` with a body of bytes, a file or a stream, marked
///   with its ``ResponseSource``; the session delivers it to whatever the caller asked for;
/// - look at the head and wrap the body to see it as it arrives and its end
///   (``HTTPLayerBody/observed(onChunk:onEnd:)``).
///
/// Layers run on the calling task's executor, never on a session's engine thread; a layer may block
/// only its own request.
///
/// ```swift
/// struct CountingLayer: HTTPLayer {
///     let count = Locked(0)
///     func send(
///         _ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext
///     ) async throws(SluiceError) -> HTTPLayerResponse {
///         count.withLock { $0 += 1 }
///         return try await next(request, context: context)
///     }
/// }
/// ```
public protocol HTTPLayer: Sendable {
    /// Sends `request` (one hop: below the follow-ups, each redirect and authentication round is a call
    /// of its own) and returns its answer.
    ///
    /// - Parameters:
    ///   - request: The request as it will be sent, as far as the layers above made it.
    ///   - context: The call this hop belongs to: its task, where its body goes, its hop number.
    ///   - next: The rest of the chain.
    /// - Throws: ``SluiceError``: what the layers below threw, or the layer's own error;
    ///   ``SluiceError/Code/cancelled`` once the call's task was cancelled.
    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
}
