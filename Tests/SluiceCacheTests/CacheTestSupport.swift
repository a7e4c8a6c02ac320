import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceTransport
import Testing

@testable import SluiceCache

/// A network layer below the cache: records each request that reaches the network and the status it
/// got back. What it does not see never left the process.
final class NetworkRecorder: HTTPLayer {
    struct Exchange: Sendable {
        let request: HTTPRequest
        let status: Int
    }
    private let exchanges = Locked<[Exchange]>([])

    var all: [Exchange] { exchanges.withLock { $0 } }
    var count: Int { all.count }

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let answer = try await next(request, context: context)
        exchanges.withLock { $0.append(Exchange(request: request, status: answer.response.statusCode)) }
        return answer
    }
}

/// An origin scripted in a network layer, no socket: each call answers with the next of `answers`
/// (the last repeats), or throws it.
final class ScriptedOrigin: HTTPLayer {
    enum Answer: Sendable {
        case response(Int, [(String, String)], String)
        case failure(SluiceError.Code)
    }
    private let state: Locked<(answers: [Answer], requests: [HTTPRequest])>

    init(_ answers: [Answer]) { state = Locked((answers, [])) }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest, context: HTTPLayerContext, next: HTTPLayerNext) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let answer = state.withLock { state -> Answer in
            state.requests.append(request)
            return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
        }
        switch answer {
        case .failure(let code):
            throw SluiceError(code, "scripted failure", request: request)
        case .response(let status, let fields, let body):
            let headers = HTTPHeaders(fields.map { try! HTTPHeader(name: $0.0, value: $0.1) })
            return HTTPLayerResponse(
                request: request, response: HTTPResponse(statusCode: status, headers: headers, url: request.url),
                body: .data(Data(body.utf8)), source: .network)
        }
    }
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

enum CacheTests {
    static func session(cache: HTTPCache, network: [any HTTPLayer]) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.cache = cache
        configuration.networkLayers = network
        return SessionManager(configuration: configuration)
    }
}
