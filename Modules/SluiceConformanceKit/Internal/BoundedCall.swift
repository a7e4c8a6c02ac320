import Foundation
import SluiceCore

/// Runs a call on a thread of its own and waits for it at most a given time, so a plugin that hangs
/// is reported instead of hanging the contract. A call that does not return in time is left running:
/// a thread cannot be stopped from outside.
enum BoundedCall {
    /// Runs `body` and returns its result, or `nil` when it did not return within `seconds`.
    static func run<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> T) -> T? {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}
