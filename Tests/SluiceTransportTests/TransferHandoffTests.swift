import Foundation
import Testing

@testable import SluiceTransport

/// The hand-off of a hop's result from the engine thread to the awaiting call, without a socket: the
/// result before or after the wait, once or twice, and the call is resumed exactly once.
@Suite("Transfer: the awaited result handed over once")
struct TransferHandoffTests {
    static func transfer(_ session: SessionManager) -> Transfer {
        let request = HTTPRequest(url: "https://a.example/")
        let task = SessionTask(id: 1, kind: .data, request: request, controller: session)
        let hop = Transfer.HopSettings(
            startedAt: nil, resourceTimeout: nil, credential: nil, followUpRule: FollowUps.Rule(), sendsBodyAgain: false)
        return Transfer(
            observer: task, request: request, hop: hop, configuration: SharedConfiguration(SessionConfiguration()),
            sink: MemorySink(), completion: nil)
    }

    @Test("the end before or after the wait, once or twice: resumed once, with the first result", arguments: ["before", "after", "twice before", "twice after"])
    func endAndWait(order: String) async {
        // Same-thread orders only: a resume from another thread before the awaiting task has finished
        // suspending is the runtime's business, and ThreadSanitizer cannot see its synchronization.
        let session = SessionManager()
        let second = SluiceError(.cancelled, "second")
        for round in 0..<500 {
            let transfer = Self.transfer(session)
            if order.hasSuffix("before") {
                transfer.end(.success(()))
                if order.hasPrefix("twice") { transfer.end(.failure(second)) }
            }
            let ended = await withUnsafeContinuation { (awaiter: Transfer.Awaiter) in
                transfer.wait(awaiter)
                if order.hasSuffix("after") {
                    transfer.end(.success(()))
                    if order.hasPrefix("twice") { transfer.end(.failure(second)) }
                }
            }
            transfer.ended()
            if case .failure = ended {
                Issue.record("round \(round): the second result won")
                return
            }
        }
    }

    @Test("a hop handed to an engine that has stopped ends at once: sessionInvalidated")
    func startAfterStop() async {
        let session = SessionManager()
        session.invalidate(cancelingTasks: false)
        let transfer = Self.transfer(session)
        let ended = await withUnsafeContinuation { (awaiter: Transfer.Awaiter) in
            transfer.wait(awaiter)
            session.start(transfer, suspended: false)
        }
        transfer.ended()
        guard case .failure(let error) = ended else {
            Issue.record("a stopped engine took the transfer")
            return
        }
        #expect(error.code == .sessionInvalidated)
    }
}
