import Foundation
import SluiceCore
import SluiceTestSupport
@testable import SluiceTransport
import Testing

extension TransportSuites {
    /// Cancelling a download for resume data, and resuming it: the cancel wins, the partial file is
    /// exactly as the resume data says, and a resume never splices a file it cannot trust.
    @Suite("Resume data", .tags(.server), .needsServers, .serialized)
    struct ResumeDataTests {
        static func temporaryURL(_ name: String) -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(name)-\(UUID().uuidString)")
        }

        /// What one cancel from the progress handler produced.
        struct Outcome: Sendable {
            var resumeData: ResumeData?
            var result: Result<DownloadResponse, SluiceError>
        }

        /// Downloads `path` and, from its progress handler, cancels for resume data once `point` bytes
        /// arrived.
        static func download(_ session: SessionManager, _ path: String, cancellingAt point: Int64) async throws -> Outcome {
            let request = try Transport.request(.http, path)
            let target = temporaryURL("target")
            let task = Locked<SessionTask?>(nil)
            let resumeData = Locked<ResumeData?>(nil)
            let asked = Locked(false)
            let result: Result<DownloadResponse, SluiceError>
            do {
                result = .success(
                    try await session.download(
                        for: request, to: { _, _ in target }, didCreateTask: { created in task.withLock { $0 = created } },
                        progress: { progress in
                            guard progress.bytesReceived >= point, let running = task.withLock({ $0 }) else { return }
                            guard asked.withLock({ asked in defer { asked = true }; return !asked }) else { return }
                            let data = session.cancel(running, producingResumeData: true)
                            resumeData.withLock { $0 = data }
                        }))
            } catch {
                result = .failure(error)
            }
            return Outcome(resumeData: resumeData.withLock { $0 }, result: result)
        }

        @Test("a cancel from the progress handler at 1,000 random points: cancelled with its file exactly as long as the resume data says, or not at all")
        func cancelAtRandomPoints() async throws {
            let session = try Transport.session()
            let served = try Transport.servedFile("1m.bin")
            var generator = SystemRandomNumberGenerator()
            var (cancelled, finished, resumed) = (0, 0, 0)
            for round in 0..<1_000 {
                let point = Int64.random(in: 1...Int64(served.count), using: &generator)
                let outcome = try await Self.download(session, "/files/1m.bin", cancellingAt: point)
                switch (outcome.resumeData, outcome.result) {
                case (let resumeData?, .failure(let error)):
                    cancelled += 1
                    #expect(error.code == .cancelled, "round \(round) at \(point): \(error)")
                    let length = try #require(resumeData.partialFileLength)
                    let partial = try Data(contentsOf: URL(fileURLWithPath: resumeData.partialFilePath))
                    #expect(Int64(partial.count) == length, "round \(round) at \(point)")
                    #expect(partial == served.prefix(partial.count), "round \(round) at \(point)")
                    if round % 50 == 0 {
                        // Some of them are resumed to the end.
                        let target = Self.temporaryURL("resumed")
                        defer { try? FileManager.default.removeItem(at: target) }
                        let first = Locked<TransferProgress?>(nil)
                        let done = try await session.download(resumingWith: resumeData, to: { _, _ in target }) { progress in
                            first.withLock { if $0 == nil { $0 = progress } }
                        }
                        resumed += 1
                        #expect(try Data(contentsOf: target) == served, "round \(round) at \(point)")
                        if length < served.count {
                            #expect(done.response.statusCode == 206)
                            #expect(done.resumption == .continued(fromByte: length))
                            let report = try #require(first.withLock { $0 })
                            #expect(report.bytesReceived >= length)
                            #expect(report.totalBytesExpected == Int64(served.count))
                        }
                    } else {
                        try? FileManager.default.removeItem(atPath: resumeData.partialFilePath)
                    }
                case (nil, .success(let response)):
                    // The task had completed before the cancel: the download is whole.
                    finished += 1
                    #expect(response.response.statusCode == 200)
                    #expect(try Data(contentsOf: response.fileURL) == served, "round \(round) at \(point)")
                    try? FileManager.default.removeItem(at: response.fileURL)
                case (let resumeData, let result):
                    Issue.record("round \(round) at \(point): resume data \(resumeData.map { "\($0)" } ?? "none") with \(result)")
                }
            }
            print("cancel at random points: \(cancelled) cancelled, \(finished) finished first, \(resumed) resumed")
            #expect(cancelled + finished == 1_000)
            #expect(cancelled > 0)
            #expect(resumed > 0)
        }

        @Test("a cancel for resume data that races the end of a download task with a completion handler wins")
        func completionHandlerTasks() async throws {
            let session = try Transport.session()
            let served = try Transport.servedFile("64k.bin")
            let request = try Transport.request(.http, "/files/64k.bin")
            for round in 0..<200 {
                let target = Self.temporaryURL("target")
                defer { try? FileManager.default.removeItem(at: target) }
                let point = Int64.random(in: 1...Int64(served.count))
                let (result, resumeData) = try await Self.downloadTask(session, request, to: target, cancellingAt: point)
                switch (resumeData, result) {
                case (let resumeData?, .failure(let error)):
                    #expect(error.code == .cancelled, "round \(round)")
                    let partial = try Data(contentsOf: URL(fileURLWithPath: resumeData.partialFilePath))
                    #expect(Int64(partial.count) == resumeData.partialFileLength, "round \(round)")
                    #expect(partial == served.prefix(partial.count), "round \(round)")
                    try? FileManager.default.removeItem(atPath: resumeData.partialFilePath)
                case (nil, .success(let response)):
                    #expect(try Data(contentsOf: response.fileURL) == served, "round \(round)")
                case (let resumeData, let result):
                    Issue.record("round \(round): resume data \(resumeData.map { "\($0)" } ?? "none") with \(result)")
                }
            }
        }

        /// Runs a download task with a completion handler and cancels it for resume data, from a task
        /// following its progress, once `point` bytes arrived.
        static func downloadTask(
            _ session: SessionManager, _ request: HTTPRequest, to target: URL, cancellingAt point: Int64
        ) async throws -> (Result<DownloadResponse, SluiceError>, ResumeData?) {
            // What the follower of the progress stream made: resume data, or none when the task ended first.
            let handed = TestSignal<ResumeData?>()
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<DownloadResponse, SluiceError>, Never>) in
                let task = session.downloadTask(with: request, to: { _, _ in target }) { result in continuation.resume(returning: result) }
                let updates = task.progressUpdates
                task.resume()
                Task {
                    var data: ResumeData?
                    for await update in updates where update.bytesReceived >= point {
                        data = session.cancel(task, producingResumeData: true)
                        break
                    }
                    handed.send(data)
                }
            }
            // The progress stream ends when the task completes, so the follower finishes soon after.
            let data = try await handed.value("the progress follower's resume data (or none)")
            return (result, data)
        }

        /// Resume data for the first `length` bytes of 16m.bin, written to a new partial file.
        static func halfDownloaded(_ length: Int) throws -> (ResumeData, Data) {
            let served = try Transport.servedFile("16m.bin")
            let partial = temporaryURL("partial")
            try served.prefix(length).write(to: partial)
            var info = stat()
            #expect(stat(partial.path, &info) == 0)
            let resumeData = ResumeData(
                url: try Transport.request(.http, "/files/16m.bin").url, headers: [:], partialFilePath: partial.path,
                validator: nil, partialFileLength: Int64(length),
                partialFileModified: ResumeData.FileTime(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec)))
            return (resumeData, served)
        }

        @Test("a resume whose partial file is gone fails with resumeDataInvalid, or starts over when asked and says so")
        func missingPartialFile() async throws {
            let session = try Transport.session()
            let (resumeData, served) = try Self.halfDownloaded(1 << 20)
            try FileManager.default.removeItem(atPath: resumeData.partialFilePath)
            let target = Self.temporaryURL("target")
            defer { try? FileManager.default.removeItem(at: target) }
            let error = await #expect(throws: SluiceError.self) {
                try await session.download(resumingWith: resumeData) { _, _ in target }
            }
            #expect(error?.code == .resumeDataInvalid)
            #expect(error?.message.contains("missing") == true)
            #expect(!FileManager.default.fileExists(atPath: target.path))
            let again = try await session.download(resumingWith: resumeData, to: { _, _ in target }, ifPartialFileChanged: .startOver)
            #expect(again.response.statusCode == 200)
            #expect(again.resumption == .startedOver(.partialFileMissing))
            #expect(try Data(contentsOf: target) == served)
        }

        @Test("a resume whose partial file changed (length or time) fails with resumeDataInvalid, or starts over when asked")
        func changedPartialFile() async throws {
            let session = try Transport.session()
            for change in ["longer", "touched"] {
                let (resumeData, served) = try Self.halfDownloaded(1 << 20)
                defer { try? FileManager.default.removeItem(atPath: resumeData.partialFilePath) }
                if change == "longer" {
                    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: resumeData.partialFilePath))
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data([0x2A]))
                    try handle.close()
                } else {
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: resumeData.partialFilePath)
                }
                let target = Self.temporaryURL("target")
                defer { try? FileManager.default.removeItem(at: target) }
                let error = await #expect(throws: SluiceError.self, "\(change)") {
                    try await session.download(resumingWith: resumeData) { _, _ in target }
                }
                #expect(error?.code == .resumeDataInvalid, "\(change)")
                let again = try await session.download(resumingWith: resumeData, to: { _, _ in target }, ifPartialFileChanged: .startOver)
                #expect(again.resumption == .startedOver(.partialFileChanged), "\(change)")
                #expect(try Data(contentsOf: target) == served, "\(change)")
            }
        }

        @Test("a resumed download's progress continues from the bytes on disk, of the whole resource")
        func resumedProgress() async throws {
            let session = try Transport.session()
            let (resumeData, served) = try Self.halfDownloaded(8 << 20)
            let target = Self.temporaryURL("target")
            defer { try? FileManager.default.removeItem(at: target) }
            let reports = Locked<[TransferProgress]>([])
            let done = try await session.download(resumingWith: resumeData, to: { _, _ in target }) { progress in
                reports.withLock { $0.append(progress) }
            }
            #expect(done.resumption == .continued(fromByte: 8 << 20))
            #expect(try Data(contentsOf: target) == served)
            let seen = reports.withLock { $0 }
            let first = try #require(seen.first)
            #expect(first.bytesReceived > 8 << 20)
            #expect(first.totalBytesExpected == Int64(served.count))
            #expect(seen.last?.bytesReceived == Int64(served.count))
            #expect(seen.map(\.bytesReceived) == seen.map(\.bytesReceived).sorted())
        }

        @Test("resume data made before lengths were recorded decodes, and is taken as it is")
        func olderResumeData() throws {
            let json = #"{"url":"http://127.0.0.1/x","headers":{},"partialFilePath":"/tmp/x","validator":null}"#
            let decoded = try JSONDecoder().decode(ResumeData.self, from: Data(json.utf8))
            #expect(decoded.partialFileLength == nil)
            #expect(decoded.partialFileModified == nil)
            let (resumeData, _) = try Self.halfDownloaded(1000)
            defer { try? FileManager.default.removeItem(atPath: resumeData.partialFilePath) }
            let roundTrip = try JSONDecoder().decode(ResumeData.self, from: JSONEncoder().encode(resumeData))
            #expect(roundTrip == resumeData)
            #expect(roundTrip.partialFileProblem() == nil)
        }
    }
}

extension TransportSuites {
    /// Completion handlers by default: on a serial queue of the session's own, never the main queue.
    @Suite("Completion queue", .tags(.server), .needsServers)
    struct CompletionQueueTests {
        @Test("with the main queue blocked (a program waiting on its main thread), a handler still runs by default")
        func handlersDoNotNeedTheMainQueue() async throws {
            var configuration = try Transport.configuration()
            configuration.completionQueue = SessionConfiguration().completionQueue  // the default, not the tests' own
            let session = SessionManager(configuration: configuration)
            // The main queue is held, as by a non-async function waiting on a semaphore called from an
            // `@main async` program (or, here, by a test runner that never services it).
            let releaseMain = DispatchSemaphore(value: 0)
            DispatchQueue.main.async { releaseMain.wait() }
            defer { releaseMain.signal() }
            let handled = TestSignal<Void>()
            let onMain = Locked<Bool?>(nil)
            session.dataTask(with: try Transport.request(.http, "/status")) { _ in
                onMain.withLock { $0 = Thread.isMainThread }
                handled.send()
            }.resume()
            // Awaited without holding a thread of the cooperative pool (the handlers need one).
            try await handled.value("the completion handler, with the main queue blocked")
            #expect(onMain.withLock { $0 } == false)
        }

        @Test("handlers of one session run one at a time, in the order their tasks completed")
        func serialByDefault() async throws {
            var configuration = try Transport.configuration()
            configuration.completionQueue = SessionConfiguration().completionQueue
            let session = SessionManager(configuration: configuration)
            let running = Locked((now: 0, most: 0, done: 0))
            let all = TestSignal<Void>()
            for _ in 0..<20 {
                session.dataTask(with: try Transport.request(.http, "/status")) { _ in
                    running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    // A handler that takes a while (the behaviour: handlers run at once would overlap here).
                    usleep(2_000)
                    let finished = running.withLock { state -> Bool in
                        state.now -= 1
                        state.done += 1
                        return state.done == 20
                    }
                    if finished { all.send() }
                }.resume()
            }
            try await all.value("the 20 completion handlers")
            #expect(running.withLock { $0.done } == 20)
            #expect(running.withLock { $0.most } == 1)
        }
    }
}
