import CCurl
import Foundation
import Synchronization
import Testing

@testable import SluiceTransport

/// What a hop's transfer tells its task, driven through curl's callbacks without a socket: the transfer
/// reports to an observer and touches nothing else of the task, and a small response's head, body start
/// and counts arrive as one report (one lock of the task's per response).
@Suite("Transfer: reports to its task")
struct HopReportTests {
    final class Recorder: HopObserver {
        let reports = Mutex<[HopReport]>([])
        func hopReported(_ report: HopReport) { reports.withLock { $0.append(report) } }
        var all: [HopReport] { reports.withLock { $0 } }
    }

    static func transfer(_ observer: Recorder, rule: FollowUps.Rule = FollowUps.Rule(), body: HTTPBody = .none) -> Transfer {
        var request = HTTPRequest(url: "http://a.example/")
        if body.isPresent {
            request.method = .post
            request.body = body
        }
        let hop = Transfer.HopSettings(
            startedAt: nil, resourceTimeout: nil, credential: nil, followUpRule: rule, sendsBodyAgain: false)
        return Transfer(
            observer: observer, request: request, hop: hop, configuration: SharedConfiguration(SessionConfiguration()),
            sink: MemorySink(), completion: nil)
    }

    static func header(_ transfer: Transfer, _ lines: [String]) {
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            let taken = bytes.withUnsafeBytes { transfer.onHeader($0) }
            #expect(taken == bytes.count, "header line \(line) refused")
        }
    }

    static func write(_ transfer: Transfer, _ text: String) {
        let bytes = Array(text.utf8)
        let taken = bytes.withUnsafeBytes { transfer.onWrite($0) }
        #expect(taken == bytes.count)
    }

    static func isComplete(_ step: Transfer.Step) -> Bool {
        if case .complete(.success) = step { return true }
        return false
    }

    @Test("a small response: head, expected length and counts in one report, at its first body bytes")
    func smallResponseOneReport() {
        let recorder = Recorder()
        let transfer = Self.transfer(recorder)
        Self.header(transfer, ["HTTP/1.1 200 OK", "Content-Length: 5", ""])
        #expect(recorder.all.isEmpty, "the head was reported before the body began")
        Self.write(transfer, "hello")
        #expect(Self.isComplete(transfer.finish(code: CURLE_OK)))
        let reports = recorder.all
        #expect(reports.count == 1)
        #expect(reports.first?.head?.statusCode == 200)
        #expect(reports.first?.totalExpected == 5)
        #expect(reports.first?.received == 5)
        #expect(reports.first?.sent == 0)
    }

    @Test("a body in several writes: one report per write, the head only in the first")
    func countsPerWrite() {
        let recorder = Recorder()
        let transfer = Self.transfer(recorder)
        Self.header(transfer, ["HTTP/1.1 200 OK", "Content-Length: 6", ""])
        Self.write(transfer, "ab")
        Self.write(transfer, "cd")
        Self.write(transfer, "ef")
        #expect(Self.isComplete(transfer.finish(code: CURLE_OK)))
        let reports = recorder.all
        #expect(reports.map(\.received) == [2, 4, 6])
        #expect(reports.map { $0.head != nil } == [true, false, false])
    }

    @Test("a response without a body: head and expected length reported at the end")
    func emptyBodyAtEnd() {
        let recorder = Recorder()
        let transfer = Self.transfer(recorder)
        Self.header(transfer, ["HTTP/1.1 204 No Content", ""])
        #expect(Self.isComplete(transfer.finish(code: CURLE_OK)))
        let reports = recorder.all
        #expect(reports.count == 1)
        #expect(reports.first?.head?.statusCode == 204)
        #expect(reports.first?.received == nil)
    }

    @Test("a redirect kept aside for the follow-ups: its head is reported at the end, its bytes are not counted")
    func heldAsideHead() {
        let recorder = Recorder()
        let transfer = Self.transfer(recorder, rule: FollowUps.Rule(followsRedirects: true))
        Self.header(transfer, ["HTTP/1.1 302 Found", "Location: /next", "Content-Length: 3", ""])
        Self.write(transfer, "abc")
        #expect(recorder.all.isEmpty)
        #expect(Self.isComplete(transfer.finish(code: CURLE_OK)))
        let reports = recorder.all
        #expect(reports.count == 1)
        #expect(reports.first?.head?.statusCode == 302)
        #expect(reports.first?.received == nil)
        #expect(transfer.heldAsideBody == Data("abc".utf8))
    }

    @Test("a connection lost after the head: the head still reaches the task, with the error")
    func headThenFailure() {
        let recorder = Recorder()
        let transfer = Self.transfer(recorder)
        Self.header(transfer, ["HTTP/1.1 200 OK", "Content-Length: 100", ""])
        guard case .complete(.failure(let error)) = transfer.finish(code: CURLE_RECV_ERROR) else {
            Issue.record("the failed attempt did not fail")
            return
        }
        #expect(error.response?.statusCode == 200)
        #expect(recorder.all.map { $0.head?.statusCode } == [200])
    }

    @Test("an interim 100 Continue is never reported; the final head is")
    func interimNotReported() {
        let recorder = Recorder()
        let transfer = Self.transfer(recorder)
        Self.header(transfer, ["HTTP/1.1 100 Continue", "", "HTTP/1.1 201 Created", "Content-Length: 0", ""])
        #expect(Self.isComplete(transfer.finish(code: CURLE_OK)))
        #expect(recorder.all.map { $0.head?.statusCode } == [201])
    }
}
