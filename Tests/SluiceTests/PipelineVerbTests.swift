import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// A layer that counts the requests it sees.
final class VerbCountingLayer: HTTPLayer {
    let count = Locked(0)

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
        count.withLock { $0 += 1 }
        return try await next(request, context: context)
    }
}

@Suite("The manager's verbs run on the session's pipeline", .tags(.server), .needsServers)
struct PipelineVerbTests {
    static func manager(_ layer: VerbCountingLayer, network: VerbCountingLayer) throws -> HTTPSessionManager {
        var configuration = SessionConfiguration()
        configuration.completionQueue = DispatchQueue(label: "sluice.tests.completion")
        configuration.layers = [layer]
        configuration.networkLayers = [network]
        return HTTPSessionManager(baseURL: try Support.httpbin(), configuration: configuration)
    }

    @Test("each verb form is one call through the layers; its redirects are hops below them")
    func verbs() async throws {
        let (layer, network) = (VerbCountingLayer(), VerbCountingLayer())
        let manager = try Self.manager(layer, network: network)
        _ = try await manager.get("get")
        _ = try await manager.post("post", parameters: ["a": 1])
        _ = try await manager.get("redirect/2")
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-verb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        _ = try await manager.download("bytes/100", to: target)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            manager.GET("get", success: { _, _ in done.resume() }, failure: { _, _ in done.resume() })
        }
        #expect(layer.count.withLock { $0 } == 5)
        #expect(network.count.withLock { $0 } == 7, "5 calls, 2 of them redirect hops")
    }

    @Test("a manager built on a session keeps its configuration, layers and completion queue")
    func onASession() async throws {
        let layer = VerbCountingLayer()
        var configuration = SessionConfiguration()
        let queue = DispatchQueue(label: "sluice.tests.session-queue")
        configuration.completionQueue = queue
        configuration.layers = [layer]
        try configuration.defaultHeaders.set(name: "X-From-Session", value: "yes")
        let session = SessionManager(configuration: configuration)
        let manager = HTTPSessionManager(baseURL: try Support.httpbin(), session: session)
        #expect(manager.session === session)
        #expect(manager.completionQueue === queue)
        let response = try await manager.get("headers")
        let headers = Support.dictionary(try Support.json(response.value)["headers"])
        #expect(Support.string(headers["X-From-Session"]) == "yes")
        #expect(layer.count.withLock { $0 } == 1)
        #expect(response.metrics.source == .network)
    }
}
