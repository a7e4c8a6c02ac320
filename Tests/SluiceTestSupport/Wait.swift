import Foundation
import Synchronization

/// How a test waits for something to happen: the one place in the suite that waits, always with a deadline,
/// and always failing with what it was waiting for.
///
/// A test never sleeps for a fixed time to let something start, arrive or end. It waits for the thing
/// itself: a ``TestSignal`` sent from a callback, a condition read from the object under test, a line in a
/// server's log, a file. The deadline exists only so that a broken product fails the test instead of hanging
/// the suite; it is generous (``defaultDeadline``) because CI runs on a machine that other work keeps busy,
/// and nothing a test asserts depends on it.
public enum Wait {
    /// The deadline every wait uses unless told otherwise: 60 s. Long enough that no loaded machine reaches
    /// it for an event that happens at all; reaching it means the event never came.
    public static let defaultDeadline: Duration = .seconds(60)

    /// Waits until `condition` holds, reading it again after short, growing pauses (1 ms up to 20 ms).
    ///
    /// For a state that has no callback of its own: a session's task list emptied, a weak reference
    /// cleared, a progress count grown. Where a callback exists, send a ``TestSignal`` from it instead.
    ///
    /// - Parameters:
    ///   - what: What the test waits for, in words; the failure says it.
    ///   - deadline: How long to wait at most (default ``defaultDeadline``).
    ///   - condition: Read until it returns `true`.
    /// - Throws: ``WaitTimeout`` naming `what` when `deadline` passes first; what `condition` throws;
    ///   `CancellationError` when the waiting task is cancelled.
    public static func until(
        _ what: @autoclosure () -> String, deadline: Duration = defaultDeadline,
        _ condition: () async throws -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        var pause = Duration.milliseconds(1)
        while try await !condition() {
            guard clock.now - start < deadline else { throw WaitTimeout(what: what(), deadline: deadline) }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Waits until `read` returns a value, and returns it.
    ///
    /// - Throws: As ``until(_:deadline:_:)``.
    public static func value<Value>(
        _ what: @autoclosure () -> String, deadline: Duration = defaultDeadline,
        _ read: () async throws -> Value?
    ) async throws -> Value {
        var found: Value?
        try await until(what(), deadline: deadline) {
            found = try await read()
            return found != nil
        }
        return found!
    }

    /// Waits until the file at `path` holds at least `count` lines that contain `text`, and returns the
    /// file's text from `offset` on.
    ///
    /// For a server's log: the access log line nginx writes after a response, the request line a Python
    /// server prints. Only the part written after `offset` is read, so a log that other tests keep growing
    /// costs no more to read than what was written since the test acted.
    ///
    /// - Parameters:
    ///   - text: What a matching line contains.
    ///   - count: How many matching lines to wait for (default 1).
    ///   - path: The file; it may not exist yet.
    ///   - offset: Where in the file this test's part starts (``fileSize(_:)`` before the test acted);
    ///     default 0.
    ///   - deadline: As ``until(_:deadline:_:)``.
    /// - Throws: ``WaitTimeout`` naming the text, the file and how many were found.
    @discardableResult
    public static func forLines(
        containing text: String, count: Int = 1, inFile path: String, from offset: UInt64 = 0,
        deadline: Duration = defaultDeadline
    ) async throws -> String {
        var latest = ""
        var found = 0
        try await until("\(count) line(s) containing \"\(text)\" in \(path) (found \(found))", deadline: deadline) {
            latest = readTail(path, from: offset)
            found = latest.split(separator: "\n", omittingEmptySubsequences: true).count { $0.contains(text) }
            return found >= count
        }
        return latest
    }

    /// Waits until a file exists at `path`.
    ///
    /// - Throws: ``WaitTimeout`` naming the path.
    public static func forFile(_ path: String, deadline: Duration = defaultDeadline) async throws {
        try await until("a file at \(path)", deadline: deadline) { FileManager.default.fileExists(atPath: path) }
    }

    /// The size of the file at `path` now, or 0 when there is none: where a test's part of a log begins.
    public static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The file's bytes from `offset` on as text (invalid UTF-8 repaired), or "" when it cannot be read.
    private static func readTail(_ path: String, from offset: UInt64) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: offset)
            return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        } catch {
            return ""
        }
    }
}

/// A wait that reached its deadline: what was awaited did not happen.
public struct WaitTimeout: Error, CustomStringConvertible {
    /// What the test waited for.
    public let what: String
    /// How long it waited.
    public let deadline: Duration

    public var description: String { "waited \(deadline) for \(what); it did not happen" }
}

/// A value that one side sends once and the other awaits: the event a test waits for, sent from a callback,
/// a layer, a body stream or a monitor.
///
/// `send` may come before or after the wait; the first value sent is kept, later ones are ignored.
/// ``TestSignal/Count`` is the same for events that happen several times.
public final class TestSignal<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex<State>(State())

    /// A signal not yet sent.
    public init() {}

    /// Sends `value`, resuming every waiter; a second send is ignored.
    public func send(_ value: Value) {
        let waiters: [CheckedContinuation<Value, any Error>] = state.withLock { state in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The value sent, if it has been.
    public var sentValue: Value? { state.withLock { $0.value } }

    /// Waits for the value.
    ///
    /// - Parameters:
    ///   - what: What the signal stands for, in words; the failure says it.
    ///   - deadline: How long to wait at most (default ``Wait/defaultDeadline``).
    /// - Throws: ``WaitTimeout`` naming `what` when `deadline` passes before the value is sent;
    ///   `CancellationError` when the waiting task is cancelled.
    @discardableResult
    public func value(_ what: @autoclosure () -> String, deadline: Duration = Wait.defaultDeadline) async throws -> Value {
        if let value = sentValue { return value }
        let description = what()
        return try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask { try await self.awaitValue() }
            group.addTask {
                try await Task.sleep(for: deadline)
                throw WaitTimeout(what: description, deadline: deadline)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// The value, once sent; a cancelled waiter is resumed with `CancellationError`.
    private func awaitValue() async throws -> Value {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let value: Value? = state.withLock { state in
                    if let value = state.value { return value }
                    state.waiters[id] = continuation
                    return nil
                }
                if let value { continuation.resume(returning: value) }
                // Cancelled before the continuation was stored: the handler below found nothing to resume.
                if Task.isCancelled, let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) {
                    waiter.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}

extension TestSignal where Value == Void {
    /// Sends the event.
    public func send() { send(()) }
}
