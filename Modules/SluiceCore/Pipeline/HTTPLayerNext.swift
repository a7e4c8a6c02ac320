/// The rest of a pipeline below one layer: call it to pass a request on.
///
/// A session makes these; a harness that runs layers without a session makes one from its own
/// ``HTTPLayerChain``.
public struct HTTPLayerNext: Sendable {
    private let chain: any HTTPLayerChain
    private let position: Int

    /// The part of `chain` from `position` down.
    ///
    /// - Parameters:
    ///   - chain: What runs the steps.
    ///   - position: The step to run first. Default 0, the top.
    public init(chain: any HTTPLayerChain, position: Int = 0) {
        self.chain = chain
        self.position = position
    }

    /// The step below this one.
    public var below: HTTPLayerNext { HTTPLayerNext(chain: chain, position: position + 1) }

    /// The same steps for one request sent on its own, outliving the call this layer was given — a
    /// cache's revalidation in the background. A session runs it as a task of its own (its body in
    /// memory; event monitors see it; invalidating the session cancels it). `nil` where the chain
    /// cannot (``LayerChain``).
    public var detached: HTTPLayerNext? {
        chain.detachedChain().map { HTTPLayerNext(chain: $0, position: position) }
    }

    /// Sends `request` down the rest of the chain.
    ///
    /// - Throws: What the steps below throw (``SluiceError``).
    public func callAsFunction(_ request: HTTPRequest, context: HTTPLayerContext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        try await chain.send(request, context: context, at: position)
    }
}

/// What runs a pipeline's steps in order: a session's chain, or a harness's.
public protocol HTTPLayerChain: Sendable {
    /// Runs step `position` with `request`, giving it the steps below as its ``HTTPLayerNext``.
    ///
    /// - Throws: What the step throws; ``SluiceError/Code/transportFailed`` for a position past the
    ///   last step (a layer at the bottom must answer).
    func send(_ request: HTTPRequest, context: HTTPLayerContext, at position: Int) async throws(SluiceError)
        -> HTTPLayerResponse

    /// A chain of the same steps that runs one request on its own, outside the current call; `nil`
    /// (the default) when there is none.
    func detachedChain() -> (any HTTPLayerChain)?
}

extension HTTPLayerChain {
    /// None.
    public func detachedChain() -> (any HTTPLayerChain)? { nil }
}

/// A chain of layers, the last of which answers: for running layers without a session (in a test, or
/// in front of another transport).
///
/// ```swift
/// let chain = LayerChain([logging, StubLayer()])
/// let answer = try await chain.send(request, context: HTTPLayerContext(task: nil, destination: .memory))
/// ```
public struct LayerChain: HTTPLayerChain {
    /// The layers, top first.
    public let layers: [any HTTPLayer]

    /// A chain of `layers`, top first.
    public init(_ layers: [any HTTPLayer]) { self.layers = layers }

    /// Sends `request` from the top.
    ///
    /// - Throws: As ``send(_:context:at:)``.
    public func send(_ request: HTTPRequest, context: HTTPLayerContext) async throws(SluiceError) -> HTTPLayerResponse {
        try await send(request, context: context, at: 0)
    }

    /// Runs layer `position`.
    ///
    /// - Throws: What the layer throws; ``SluiceError/Code/transportFailed`` when the last layer called
    ///   the one below it.
    public func send(_ request: HTTPRequest, context: HTTPLayerContext, at position: Int) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        guard position < layers.count else {
            throw SluiceError(.transportFailed, "the last layer passed the request on: nothing below it answers", request: request)
        }
        return try await layers[position].send(request, context: context, next: HTTPLayerNext(chain: self, position: position + 1))
    }
}
