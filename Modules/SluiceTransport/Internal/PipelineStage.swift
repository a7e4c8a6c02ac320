import SluiceCore

/// One step of a session's pipeline, top first: the caller's layers, the follow-ups, the bridge, the
/// cache slot and the network layers (layers too), and the exchange on libcurl at the bottom.
enum PipelineStage: Sendable {
    /// A layer: the caller's, the cache's, or a network layer.
    case layer(any HTTPLayer)
    /// Redirects and authentication rounds, one hop at a time (``FollowUps``).
    case followUps
    /// Default headers, `Accept-Encoding` and `Content-Encoding` (``Bridge``).
    case bridge
    /// One hop on libcurl.
    case exchange

    /// The steps for `configuration`.
    static func stages(for configuration: SessionConfiguration) -> [PipelineStage] {
        var stages = configuration.layers.map(PipelineStage.layer)
        stages.append(.followUps)
        stages.append(.bridge)
        if let cache = configuration.cache { stages.append(.layer(cache)) }
        stages += configuration.networkLayers.map(PipelineStage.layer)
        stages.append(.exchange)
        return stages
    }
}
