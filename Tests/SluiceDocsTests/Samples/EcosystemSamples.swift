import CoreMetrics
import Foundation
import HTTPTypes
import Sluice
import SluiceCache
import SluiceHTTPTypes
import SluiceMetrics
import SluiceTracing
import Tracing

// The samples of docs/http-types.md and docs/observability.md, compiled.

func sendHTTPTypesRequest(_ session: SessionManager, json: Data) async throws -> Int {
    var request = HTTPTypes.HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/v1/items?dry-run=1")
    request.headerFields[.contentType] = "application/json"
    request.headerFields.append(HTTPField(name: .accept, value: "application/json"))

    let (response, body) = try await session.send(request, body: .bytes(json))
    print(response.status, body.data?.count ?? 0)
    return response.status.code
}

func convertHeads(_ incoming: HTTPTypes.HTTPRequest) throws -> HTTPTypes.HTTPResponse {
    // swift-http-types → SluiceCore: a request any Sluice API takes.
    let request = try SluiceCore.HTTPRequest(incoming, body: .none)
    // SluiceCore → swift-http-types, and back.
    let fields = HTTPFields(request.headers)
    let headers = try SluiceCore.HTTPHeaders(fields)
    let response = SluiceCore.HTTPResponse(statusCode: 201, headers: headers)
    return try HTTPTypes.HTTPResponse(response)
}

func observedSession() -> SessionManager {
    var configuration = SessionConfiguration()
    // The top of the pipeline: a span and measurements per task.
    configuration.layers.append(HTTPTracingLayer.task())
    configuration.layers.append(HTTPMetricsLayer(countsCacheOutcomes: true))
    // Just above the network: a span per hop, with the trace context in its request.
    configuration.networkLayers.insert(HTTPTracingLayer.hop(), at: 0)
    configuration.cache = HTTPCache()
    return SessionManager(configuration: configuration)
}

func explicitBackends(tracer: any Tracer, metrics: any MetricsFactory) -> SessionConfiguration {
    var configuration = SessionConfiguration()
    configuration.layers.append(HTTPTracingLayer.task(tracer: tracer))
    configuration.layers.append(HTTPMetricsLayer(factory: metrics))
    configuration.networkLayers.insert(HTTPTracingLayer.hop(tracer: tracer), at: 0)
    return configuration
}
