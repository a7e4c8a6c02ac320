import Foundation
import SluiceConformance
import SluiceCore
import SluiceGzip
import SluiceTransport

/// The soak's mix of requests: small and larger GETs, gzip bodies, streams and downloads through the
/// fault proxy's `mixed` port; HTTP/2 GETs, JSON posts and redirects straight to the servers; tasks
/// cancelled while they run; requests to a server that never answers under a short timeout.
struct Workload: Sendable {
    let mixed: URL
    let halfOpen: URL
    let http: URL
    let https: URL
    let httpbin: URL
    let caPEM: Data?
    /// Operations per phase. Default 400.
    var operations = 400
    /// Operations in flight at once. Default 24.
    var concurrency = 24
    /// Small GETs straight to nginx after the mixed operations of each phase, for volume: memory is
    /// judged per million requests. Default 20,000.
    var volumeRequests = 20_000
    /// Of those, in flight at once. Default 32.
    var volumeConcurrency = 32

    init?(servers: ServerEnvironment) {
        guard let mixed = servers.faultURL("mixed"), let halfOpen = servers.faultURL("half-open"),
            let http = servers.url(for: .http), let https = servers.url(for: .https), let httpbin = servers.url(for: .httpbin)
        else { return nil }
        (self.mixed, self.halfOpen, self.http, self.https, self.httpbin) = (mixed, halfOpen, http, https, httpbin)
        caPEM = servers.caFile.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
    }

    /// What one operation came to.
    enum Outcome: Sendable {
        case succeeded
        case failed(SluiceError.Code)
        case violation(String)
    }

    /// Runs one phase with a session of its own, released when the phase ends.
    func run(phase index: Int) async -> SoakProgram.Phase {
        var phase = SoakProgram.Phase(index: index)
        let started = ContinuousClock.now
        var configuration = SessionConfiguration()
        configuration.tls.trustedCertificatesPEM = caPEM
        try? configuration.registry.register(GzipPlugin())
        configuration.idleTimeout = 3
        let session = SessionManager(configuration: configuration)
        let completions = CompletionLedger()
        await withTaskGroup(of: Outcome.self) { group in
            var next = 0
            func add() {
                let operation = next
                next += 1
                group.addTask { await self.perform(operation, phase: index, session: session, ledger: completions) }
            }
            for _ in 0..<min(concurrency, operations) { add() }
            for await outcome in group {
                phase.record(outcome)
                if next < operations { add() }
            }
        }
        phase.violations += await completions.settle(within: .seconds(30))
        await volume(session: session, into: &phase)
        session.invalidate(cancelingTasks: true)
        phase.seconds = (ContinuousClock.now - started) / .seconds(1)
        return phase
    }

    private func url(_ base: URL, _ path: String) -> URL { URL(string: base.absoluteString + path)! }

    /// ``volumeRequests`` GETs of a 1 KiB file straight to nginx, ``volumeConcurrency`` at once.
    private func volume(session: SessionManager, into phase: inout SoakProgram.Phase) async {
        let request = HTTPRequest(url: url(http, "/files/1k.bin"))
        await withTaskGroup(of: Outcome.self) { group in
            var started = 0
            func add() {
                started += 1
                group.addTask {
                    do throws(SluiceError) {
                        let result = try await session.data(for: request)
                        return result.data.count == 1024 ? .succeeded : .violation("1k.bin arrived as \(result.data.count) bytes")
                    } catch {
                        return .failed(error.code)
                    }
                }
            }
            for _ in 0..<min(volumeConcurrency, volumeRequests) { add() }
            for await outcome in group {
                phase.record(outcome)
                if started < volumeRequests { add() }
            }
        }
    }

    /// Runs operation number `operation`; the kind goes round a list of ten.
    private func perform(_ operation: Int, phase: Int, session: SessionManager, ledger: CompletionLedger) async -> Outcome {
        do throws(SluiceError) {
            switch operation % 10 {
            case 0:
                let result = try await session.data(for: HTTPRequest(url: url(mixed, "/files/1k.bin")))
                return result.data.count == 1024 ? .succeeded : .violation("1k.bin arrived as \(result.data.count) bytes without an error")
            case 1:
                let result = try await session.data(for: HTTPRequest(url: url(mixed, "/files/64k.bin")))
                return result.data.count == 65_536 ? .succeeded : .violation("64k.bin arrived as \(result.data.count) bytes without an error")
            case 2:
                let result = try await session.data(for: HTTPRequest(url: url(https, "/files/1k.bin")))
                return result.data.count == 1024 ? .succeeded : .violation("1k.bin over HTTP/2 arrived as \(result.data.count) bytes")
            case 3:
                var request = HTTPRequest(url: url(httpbin, "/post"), method: .post)
                request.headers = ["Content-Type": "application/json"]
                let body = Data(#"{"phase":\#(phase),"operation":\#(operation)}"#.utf8)
                let result = try await session.upload(for: request, from: .bytes(body))
                return result.response.statusCode == 200 ? .succeeded : .violation("POST answered \(result.response.statusCode)")
            case 4:
                let target = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-soak-\(UUID()).bin")
                defer { try? FileManager.default.removeItem(at: target) }
                let result = try await session.download(for: HTTPRequest(url: url(mixed, "/files/64k.bin"))) { _, _ in target }
                let size = (try? FileManager.default.attributesOfItem(atPath: result.fileURL.path)[.size] as? Int) ?? -1
                return size == 65_536 ? .succeeded : .violation("a download kept \(size) bytes without an error")
            case 5:
                let (stream, _) = try await session.bytes(for: HTTPRequest(url: url(mixed, "/files/64k.bin")))
                var count = 0
                do {
                    for try await chunk in stream { count += chunk.count }
                } catch let error as SluiceError {
                    return .failed(error.code)
                } catch {
                    return .violation("a stream failed with \(type(of: error)), not a SluiceError")
                }
                return count == 65_536 ? .succeeded : .violation("a stream ended after \(count) bytes without an error")
            case 6:
                // A task cancelled while it runs: its completion must come exactly once.
                let id = await ledger.expect()
                let task = session.dataTask(with: HTTPRequest(url: url(http, "/slow/files/1m.bin"))) { result in
                    Task { await ledger.complete(id, result.map { _ in () }) }
                }
                task.resume()
                try? await Task.sleep(for: .milliseconds(operation % 40))
                task.cancel()
                return .succeeded
            case 7:
                var request = HTTPRequest(url: url(halfOpen, "/status"))
                request.timeout = 0.3
                _ = try await session.data(for: request)
                return .violation("a server that never answers answered")
            case 8:
                let result = try await session.data(for: HTTPRequest(url: url(httpbin, "/redirect/2")))
                return result.response.statusCode == 200 ? .succeeded : .violation("a redirect ended at \(result.response.statusCode)")
            default:
                var request = HTTPRequest(url: url(mixed, "/encoded/gzip/text.txt"))
                request.headers = ["Accept-Encoding": "gzip"]
                _ = try await session.data(for: request)
                return .succeeded
            }
        } catch {
            return .failed(error.code)
        }
    }
}

extension SoakProgram.Phase {
    /// Counts one operation's outcome.
    mutating func record(_ outcome: Workload.Outcome) {
        requests += 1
        switch outcome {
        case .succeeded: succeeded += 1
        case .failed(let code): failures[code.rawValue, default: 0] += 1
        case .violation(let text): violations.append(text)
        }
    }
}

/// Counts the completions of completion-handler tasks: each must come exactly once.
actor CompletionLedger {
    private var expected = 0
    private var seen: [Int: Int] = [:]
    private var twice: [String] = []

    /// A new task's number.
    func expect() -> Int {
        expected += 1
        return expected
    }

    /// Task `id` completed.
    func complete(_ id: Int, _ result: Result<Void, SluiceError>) {
        seen[id, default: 0] += 1
        if seen[id]! > 1 { twice.append("task \(id) completed \(seen[id]!) times") }
    }

    /// Waits until every task completed, up to `deadline`; the violations found.
    func settle(within deadline: Duration) async -> [String] {
        let start = ContinuousClock.now
        while seen.count < expected, ContinuousClock.now - start < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        var violations = twice
        if seen.count < expected { violations.append("\(expected - seen.count) of \(expected) completion handlers never called") }
        return violations
    }
}
