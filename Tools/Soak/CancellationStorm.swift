import CSluiceHeap
import Foundation
import SluiceConformance
import SluiceCore
import SluiceTransport

/// `sluice-soak storm [tasks] [rounds]`: starts `tasks` (default 5,000) downloads of a slow file at once,
/// cancels them all, waits for every completion, releases the session, and reports where memory went:
/// resident memory, what the C heap has handed out, what it holds from the system, and the same after
/// the allocator is asked to give free memory back (`malloc_trim`).
enum CancellationStorm {
    struct Reading: CustomStringConvertible {
        var residentMiB: Double
        var heapInUseMiB: Double
        var heapFromSystemMiB: Double

        static func now() -> Reading {
            Reading(residentMiB: Gauges.read().residentMiB, heapInUseMiB: Double(sluice_heap_bytes_in_use()) / 1_048_576,
                    heapFromSystemMiB: Double(sluice_heap_bytes_from_system()) / 1_048_576)
        }

        var description: String {
            String(format: "resident %.1f MiB, heap in use %.1f MiB, heap from the system %.1f MiB", residentMiB, heapInUseMiB, heapFromSystemMiB)
        }
    }

    static func run(servers: ServerEnvironment, tasks: Int, rounds: Int) async -> Int32 {
        guard let http = servers.url(for: .http) else { return 2 }
        let url = URL(string: http.absoluteString + "/slow/files/1m.bin")!
        // Warm up: one session, a few requests, released.
        do {
            let session = SessionManager()
            for _ in 0..<10 { _ = try? await session.data(for: HTTPRequest(url: URL(string: http.absoluteString + "/files/1k.bin")!)) }
        }
        try? await Task.sleep(for: .seconds(1))
        let baseline = Reading.now()
        // A sanitizer brings its own allocator, which keeps memory its own way: only glibc's is judged.
        say("storm: allocator: \(sluice_heap_tracks_malloc() == 1 ? "glibc" : "not glibc's")")
        say("storm: baseline: \(baseline)")
        for round in 1...rounds {
            let before = Reading.now()
            let completed = await storm(url: url, tasks: tasks)
            try? await Task.sleep(for: .seconds(2))
            let after = Reading.now()
            say(String(format: "storm %d: %d tasks cancelled, %d completions; after: %@ (%+.1f MiB resident since the round began)",
                         round, tasks, completed, after.description, after.residentMiB - before.residentMiB))
        }
        let beforeTrim = Reading.now()
        let trimStart = ContinuousClock.now
        let trimmed = sluice_heap_trim()
        let trimTook = ContinuousClock.now - trimStart
        let afterTrim = Reading.now()
        say("storm: malloc_trim took \(trimTook)")
        say("storm: before malloc_trim: \(beforeTrim)")
        say("storm: after malloc_trim (\(trimmed == 1 ? "memory given back" : "nothing to give back")): \(afterTrim)")
        say(String(format: "storm: resident above the baseline: %.1f MiB before the trim, %.1f MiB after",
                     beforeTrim.residentMiB - baseline.residentMiB, afterTrim.residentMiB - baseline.residentMiB))
        return 0
    }

    /// Starts `tasks` data tasks, cancels them all once they are running, and waits for every completion.
    private static func storm(url: URL, tasks count: Int) async -> Int {
        let session = SessionManager()
        let done = CompletionCounter()
        var tasks: [SessionTask] = []
        tasks.reserveCapacity(count)
        for _ in 0..<count {
            let task = session.dataTask(with: HTTPRequest(url: url)) { _ in done.increment() }
            task.resume()
            tasks.append(task)
        }
        try? await Task.sleep(for: .seconds(1))
        for task in tasks { task.cancel() }
        let start = ContinuousClock.now
        while done.value < count, ContinuousClock.now - start < .seconds(60) { try? await Task.sleep(for: .milliseconds(50)) }
        tasks.removeAll()
        session.invalidate(cancelingTasks: true)
        return done.value
    }
}

/// A thread-safe count of completions.
final class CompletionCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
