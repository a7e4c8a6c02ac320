import SluiceCore

/// A session layer that records each request it is given, as it goes down the pipeline.
struct RecordingLayer: HTTPLayer {
    let requests = Locked<[HTTPRequest]>([])

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        requests.withLock { $0.append(request) }
        return try await next(request, context: context)
    }
}
