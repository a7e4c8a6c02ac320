import Foundation
import SluiceCore

extension PipelineCall {
    /// The bottom of the pipeline: one hop on libcurl. Its body goes where the call's goes (memory, the
    /// download's file, the stream), except the body of a response the follow-ups may act on, which is
    /// kept aside, small and decoded.
    ///
    /// `hop`: the hop's settings when the follow-ups pass them straight down (nothing in between), else
    /// read from the call.
    func exchange(_ request: HTTPRequest, context: HTTPLayerContext, hop given: Hop? = nil) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        // A call's first hop starts its clock as it configures its handle.
        let (hop, start) = given.map { ($0, context.hop == 0 ? nil : knownStart) } ?? hopAndStart
        let settings = Transfer.HopSettings(
            startedAt: start, resourceTimeout: resourceTimeout, credential: hop.credential,
            followUpRule: hop.followUpRule, sendsBodyAgain: hop.sendsBodyAgain,
            destination: destination, bodyReadQueue: bodyReadQueue)
        if destination == .stream { return try await exchangeStreamed(request, settings: settings) }
        let transfer = Transfer(
            observer: task, request: request, hop: settings, configuration: session.sharedConfiguration, sink: sink,
            completion: nil)
        let suspended = try session.attach(transfer, to: task)
        let ending = await withUnsafeContinuation { (awaiter: Transfer.Awaiter) in
            transfer.wait(awaiter)
            session.start(transfer, suspended: suspended)
        }
        transfer.ended()
        // The transfer stays the task's until the next hop's replaces it or the task completes: a cancel
        // meanwhile finds it ended and does nothing to it (the follow-ups check the cancel between hops).
        try ending.get()
        return answer(from: transfer)
    }

    /// A streamed call's hop: returns at its head, its body running on into the call's stream (a function
    /// of its own, so the frame of every other hop holds none of this).
    private func exchangeStreamed(_ request: HTTPRequest, settings: Transfer.HopSettings) async throws(SluiceError)
        -> HTTPLayerResponse
    {
        let transfer = Transfer(
            observer: task, request: request, hop: settings, configuration: session.sharedConfiguration, sink: sink,
            completion: { [self] transfer, ending in streamHopEvent(ending, ended: transfer) })
        let suspended = try session.attach(transfer, to: task)
        streamHopBegins()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, SluiceError>, Never>) in
            if let early = waitForHead(continuation) { return continuation.resume(returning: early) }
            session.start(transfer, suspended: suspended)
        }
        headTaken()
        switch result {
        case .failure(let error):
            session.detach(transfer, from: task)
            throw error
        case .success:
            if transfer.heldAsideBody == nil {
                // The head of the body the stream carries: the transfer runs on while it is read.
                streamStarted(transfer)
            } else {
                session.detach(transfer, from: task)
            }
            return answer(from: transfer)
        }
    }

    /// What a hop's transfer answered: its request as sent, its head, and its body as the sink holds it
    /// (or as kept aside).
    private func answer(from transfer: Transfer) -> HTTPLayerResponse {
        let ended = destination != .stream || transfer.heldAsideBody != nil
        noteHop(transfer, ended: ended)
        let response = transfer.responseHead?.makeResponse() ?? HTTPResponse(statusCode: 0)
        let body: HTTPLayerBody
        if let aside = transfer.heldAsideBody {
            body = .data(aside)
        } else {
            switch target {
            case .memory(let memory):
                body = .data(memory.data)
            case .file(let file):
                body = HTTPLayerBody(.file(URL(fileURLWithPath: file.path)), owner: file)
            case .stream(let stream):
                let view = ByteStream(buffer: stream.buffer, cancelsWhenDropped: false)
                body = HTTPLayerBody(.stream(ResponseBodyStream(view)), owner: stream.buffer)
            }
        }
        // A streamed body's transaction is known at its end (``streamBodyEnded(_:transfer:)``).
        let transactions = destination == .stream && transfer.heldAsideBody == nil ? [] : transfer.metrics.transactions
        return HTTPLayerResponse(
            request: transfer.request, response: response, body: body, source: .network, transactions: transactions)
    }
}
