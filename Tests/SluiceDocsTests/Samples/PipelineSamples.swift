import Foundation
import Sluice
import Synchronization

// The sample of docs/transport.md's pipeline section, compiled.
/// Answers GET /health itself; passes everything else on, counting the bytes that come back.
final class HealthLayer: HTTPLayer {
    let bytes = Mutex(0)

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError) -> HTTPLayerResponse {
        if request.method == .get, request.url.path == "/health" {
            return HTTPLayerResponse(request: request, response: HTTPResponse(statusCode: 200),
                                     body: .data(Data("ok".utf8)), source: .layer("health"))
        }
        var answer = try await next(request, context: context)
        answer.body = answer.body.observed(onChunk: { chunk in self.bytes.withLock { $0 += chunk.count } },
                                           onEnd: { _ in })
        return answer
    }
}

func sessionWithHealthLayer() -> SessionManager {
    var configuration = SessionConfiguration()
    configuration.layers = [HealthLayer()]
    return SessionManager(configuration: configuration)
}
