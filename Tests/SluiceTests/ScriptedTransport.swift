import Foundation
import Sluice

/// A test double of the transport seam: answers each request from a script, with no socket, and keeps
/// every request it was given in order.
final class ScriptedTransport: HTTPTransport {
    /// What the script answers one request with.
    enum Answer: Sendable {
        case respond(status: Int, headers: [String: String] = [:], body: Data = Data())
        case fail(SluiceError.Code)
    }

    /// A task of the double: it records what its caller did to it.
    final class ScriptedTask: TransportTask {
        let originalRequest: HTTPRequest
        private let state = Locked((cancelled: false, response: HTTPResponse?.none))
        init(_ request: HTTPRequest) { originalRequest = request }
        var currentRequest: HTTPRequest { originalRequest }
        var response: HTTPResponse? { state.withLock { $0.response } }
        var progressUpdates: AsyncStream<TransferProgress> { AsyncStream { $0.finish() } }
        var isCancelled: Bool { state.withLock { $0.cancelled } }
        func cancel() { state.withLock { $0.cancelled = true } }
        func suspend() {}
        func resume() {}
        func answered(_ response: HTTPResponse) { state.withLock { $0.response = response } }
    }

    private let script: @Sendable (_ request: HTTPRequest, _ index: Int) -> Answer
    private let received = Locked<[HTTPRequest]>([])

    /// A transport answering the `index`-th request it is given (from 0) as `script` says.
    init(_ script: @escaping @Sendable (_ request: HTTPRequest, _ index: Int) -> Answer) { self.script = script }

    /// The requests given so far, in order.
    var requests: [HTTPRequest] { received.withLock { $0 } }

    func exchange(
        _ request: HTTPRequest, receiving destination: ResponseBodyDestination, events: TransportEvents
    ) async throws(SluiceError) -> TransportExchange {
        try request.validateForSending()
        let index = received.withLock { list -> Int in
            list.append(request)
            return list.count - 1
        }
        let task = ScriptedTask(request)
        events.didCreateTask?(task)
        guard !Task.isCancelled else { throw SluiceError(.cancelled, "cancelled", request: request) }
        let headers: [String: String]
        let status: Int
        let body: Data
        switch script(request, index) {
        case .fail(let code):
            throw SluiceError(code, "scripted failure", request: request)
        case .respond(let answeredStatus, let answeredHeaders, let answeredBody):
            (status, headers, body) = (answeredStatus, answeredHeaders, answeredBody)
        }
        let response = HTTPResponse(
            statusCode: status, headers: (try? HTTPHeaders(validating: headers)) ?? HTTPHeaders(), url: request.url)
        task.answered(response)
        let sent = Int64(request.body.isPresent ? (try? request.body.makeStream().contentLength ?? 0) ?? 0 : 0)
        events.progress?(TransferProgress(
            bytesSent: sent, totalBytesToSend: sent, bytesReceived: Int64(body.count), totalBytesExpected: Int64(body.count)))
        let metrics = TaskMetrics(transactions: [
            .init(url: request.url, statusCode: status, httpVersion: "1.1", bytesSent: sent, bytesReceived: Int64(body.count)),
        ])
        switch destination {
        case .memory:
            return TransportExchange(request: request, response: response, body: .data(body), metrics: metrics)
        case .stream:
            let chunks = stride(from: 0, to: body.count, by: 4).map { body.subdata(in: $0..<min($0 + 4, body.count)) }
            return TransportExchange(request: request, response: response, body: .stream(ResponseBodyStream(chunks: chunks)))
        case .file(let choose):
            let temporary = URL(fileURLWithPath: NSTemporaryDirectory() + "sluice-scripted-\(UUID().uuidString)")
            do {
                try body.write(to: temporary)
                let target = choose(temporary, response)
                if target != temporary {
                    try? FileManager.default.removeItem(at: target)
                    try FileManager.default.moveItem(at: temporary, to: target)
                }
                return TransportExchange(request: request, response: response, body: .file(target), metrics: metrics)
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw SluiceError(.downloadFailed, "cannot write the scripted body: \(error)", request: request)
            }
        }
    }
}
