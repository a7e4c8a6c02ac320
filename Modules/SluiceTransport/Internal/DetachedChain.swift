import Foundation
import SluiceCore

/// The session's steps for one request sent on its own, from a given step down: a data task of the
/// session (its body in memory) that begins and completes around that one request, so event monitors
/// see it and invalidating the session cancels it. Made by ``PipelineCall/detachedChain()`` for work a
/// layer starts that outlives its call (a cache's revalidation in the background).
struct DetachedChain: HTTPLayerChain {
    let session: SessionManager

    func send(_ request: HTTPRequest, context: HTTPLayerContext, at position: Int) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let call = session.makeCall(kind: .data, request: request, sink: .memory(MemorySink()))
        let task = call.task
        if let refusal = session.begin(task, invalidated: call.madeOnInvalidatedSession) {
            _ = session.complete(task, .failure(refusal))
            throw refusal
        }
        do throws(SluiceError) {
            let answer = try await call.send(request, context: HTTPLayerContext(task: task, destination: .memory), at: position)
            let (start, lastHopEnd) = call.times
            let metrics = TaskMetrics(
                transactions: answer.recordedTransactions, startDate: start,
                duration: (lastHopEnd ?? Date()).timeIntervalSince(start))
            _ = session.complete(task, .success(.init(request: answer.request, response: answer.response, metrics: metrics)))
            return answer
        } catch {
            _ = session.complete(task, .failure(error))
            throw error
        }
    }
}
